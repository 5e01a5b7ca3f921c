import Control
import TestProcess

/// One control call from a thread of its own, against a server in this process, waiting as long as a
/// hang guard allows: the full suite keeps two cores busy for minutes, and this measures answers, not speed.
func controlCall(_ command: ControlCommand, to path: String) async throws -> ControlWire.Reply {
    try await blocking { try ControlClient.send(command, to: path, timeout: hangTimeout) }
}
