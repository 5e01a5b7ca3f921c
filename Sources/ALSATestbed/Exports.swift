// Test PCMs come with files to read and write: clients of the testbed get the shared file helpers
// (`TestFiles`, `TemporaryDirectory`, which live in `TestProcess`) with it.
@_exported import TestProcess
