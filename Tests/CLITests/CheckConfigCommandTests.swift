import Glibc
import TestProcess
import Testing

/// `jarvis-voice check-config`: what the owner runs after editing the file over SSH.
@Suite struct CheckConfigCommandTests {
    /// The real binary: stdout lines, empty stderr, exit 78; and "PATH: OK" with exit 0.
    @Test func checkConfigBinary() async throws {
        let binary = try #require(ChildProcess.builtExecutable("jarvis-voice"), "jarvis-voice is not built next to the tests")
        let directory = TemporaryDirectory()
        let bad = directory.write("bad.toml", "[audio]\nperiod_ms = 500\n[realtime]\nvad = \"loud\"\nvoice = \"jarvis\"\n[nope]\n")
        let result = try await ChildProcess.run([binary, "check-config", "--config", bad])
        #expect(result.status == 78)
        #expect(
            result.stdout == """
                \(bad): [jarvis] url is required: the address of your Jarvis (term-llm serve), e.g. url = "http://192.168.1.20:8081/ui"
                \(bad):2: [audio] period_ms must be between 1 and 100, got 500
                \(bad):4: [realtime] vad must be one of "semantic", "server", got "loud"
                \(bad):5: [realtime] voice must be one of "alloy", "ash", "ballad", "coral", "echo", "sage", "shimmer", "verse", "marin", "cedar", got "jarvis"
                \(bad):6: unknown section [nope]

                """)
        #expect(result.stderr == "")

        let good = directory.write("good.toml", "[button]\nenabled = false\n[jarvis]\nurl = \"http://jarvis.lan/ui\"\n")
        let ok = try await ChildProcess.run([binary, "check-config", "-c", good])
        #expect(ok.status == 0)
        #expect(ok.stdout == "\(good): OK\n")

        let missing = try await ChildProcess.run([binary, "check-config", "--config", directory.path + "/none.toml"])
        #expect(missing.status == 78)
        #expect(missing.stdout == "\(directory.path)/none.toml: cannot read file: No such file or directory\n")
    }

    /// The model lifecycle, on either side of gpt-realtime's shutdown (libfaketime sets the day the binary
    /// sees; scripts/install-deps installs it): a warning naming the date and the replacement before, a
    /// problem (exit 78) after.
    @Test func aRetiredModelWarnsBeforeItsShutdownAndFailsAfter() async throws {
        let binary = try #require(ChildProcess.builtExecutable("jarvis-voice"), "jarvis-voice is not built next to the tests")
        let faketime = "/usr/bin/faketime"
        try #require(access(faketime, X_OK) == 0, "faketime is missing: scripts/install-deps test")
        let directory = TemporaryDirectory()
        let old = directory.write(
            "old.toml", "[button]\nenabled = false\n\n[realtime]\nmodel = \"gpt-realtime\"\n[jarvis]\nurl = \"http://jarvis.lan/ui\"\n")
        let before = try await ChildProcess.run([faketime, "2026-12-06 12:00:00", binary, "check-config", "--config", old])
        #expect(before.status == 0)
        #expect(
            before.stdout == """
                \(old):5: warning: the Realtime model "gpt-realtime" shuts down on 2027-01-20 (in 45 days); set [realtime] model = "gpt-realtime-2.1"
                \(old): OK

                """)
        let after = try await ChildProcess.run([faketime, "2027-02-01 12:00:00", binary, "check-config", "--config", old])
        #expect(after.status == 78)
        #expect(
            after.stdout == """
                \(old):5: the Realtime model "gpt-realtime" was shut down on 2027-01-20 and the API refuses it; set [realtime] model = "gpt-realtime-2.1"

                """)
        let current = directory.write("current.toml", "[realtime]\nmodel = \"gpt-realtime-2.1-mini\"\n[jarvis]\nurl = \"http://jarvis.lan/ui\"\n")
        let fine = try await ChildProcess.run([faketime, "2027-02-01 12:00:00", binary, "check-config", "--config", current])
        #expect(fine.status == 0 && fine.stdout == "\(current): OK\n")
    }

    /// Debian habits: no subcommand is a usage error (64), not a help page that exits 0.
    @Test func noSubcommandIsAUsageError() async throws {
        let binary = try #require(ChildProcess.builtExecutable("jarvis-voice"), "jarvis-voice is not built next to the tests")
        let result = try await ChildProcess.run([binary])
        #expect(result.status == 64)
        #expect(result.stderr.contains("a subcommand is needed"), "\(result.stderr)")
        #expect(result.stderr.contains("Usage: jarvis-voice <subcommand>"), "\(result.stderr)")
    }
}
