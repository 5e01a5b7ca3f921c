import Testing
import TestProcess

/// `jarvis-voice check-config`: what the owner runs after editing the file over SSH.
@Suite struct CheckConfigCommandTests {
    /// The real binary: stdout lines, empty stderr, exit 78; and "PATH: OK" with exit 0.
    @Test func checkConfigBinary() async throws {
        let binary = try #require(ChildProcess.builtExecutable("jarvis-voice"), "jarvis-voice is not built next to the tests")
        let directory = TemporaryDirectory()
        let bad = directory.write("bad.toml", "[audio]\nperiod_ms = 500\n[realtime]\nvad = \"loud\"\n[nope]\n")
        let result = try await ChildProcess.run([binary, "check-config", "--config", bad])
        #expect(result.status == 78)
        #expect(result.stdout == """
            \(bad):2: [audio] period_ms must be between 1 and 100, got 500
            \(bad):4: [realtime] vad must be one of "semantic", "server", got "loud"
            \(bad):5: unknown section [nope]

            """)
        #expect(result.stderr == "")

        let good = directory.write("good.toml", "[button]\nenabled = false\n")
        let ok = try await ChildProcess.run([binary, "check-config", "--config", good])
        #expect(ok.status == 0)
        #expect(ok.stdout == "\(good): OK\n")

        let missing = try await ChildProcess.run([binary, "check-config", "--config", directory.path + "/none.toml"])
        #expect(missing.status == 78)
        #expect(missing.stdout == "\(directory.path)/none.toml:1: cannot read file: No such file or directory\n")
    }
}
