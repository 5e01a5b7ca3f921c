import Glibc
import TestProcess
import Testing

@Suite struct ChildProcessTests {
    @Test func capturesBothStreamsAndTheExitCode() async throws {
        let result = try await ChildProcess.run(["sh", "-c", "printf out; printf err >&2; exit 3"])
        #expect(result.status == 3)
        #expect(result.stdout == "out")
        #expect(result.stderr == "err")
        #expect(!result.timedOut)
    }

    @Test func addsEnvironmentToOurs() async throws {
        let result = try await ChildProcess.run(
            ["sh", "-c", "printf '%s %s' \"$JV_EXTRA\" \"${PATH:+path}\""],
            environment: ["JV_EXTRA": "a b=c"])
        #expect(result.stdout == "a b=c path")
    }

    @Test func stdinIsDevNullOrAFile() async throws {
        #expect(try await ChildProcess.run(["cat"]).stdout == "")
        var template = Array("/tmp/jv-child-test-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        try #require(fd >= 0)
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        defer { unlink(path) }
        _ = Array("fed via stdin".utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        #expect(try await ChildProcess.run(["cat"], stdin: .file(path)).stdout == "fed via stdin")
    }

    @Test func outputCanGoToAFileOrNowhere() async throws {
        let path = "/tmp/jv-child-test-out-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(path) }
        let result = try await ChildProcess.run(["sh", "-c", "echo to-file; echo gone >&2"], stdout: .file(path), stderr: .discard)
        #expect(result.status == 0)
        #expect(result.stdout == "" && result.stderr == "")
        let file = try #require(fopen(path, "r"))
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 64)
        #expect(fgets(&buffer, 64, file).map { String(cString: $0) } == "to-file\n")
    }

    /// The reason this helper exists: descriptors without close-on-exec (like NIO's sockets) stay here.
    @Test func inheritedDescriptorsAreClosedInTheChild() async throws {
        let fd = open("/dev/null", O_RDONLY)  // no O_CLOEXEC on purpose
        try #require(fd >= 3)
        defer { close(fd) }
        let result = try await ChildProcess.run(["sh", "-c", "if [ -e /proc/self/fd/\(fd) ]; then echo open; else echo closed; fi"])
        #expect(result.stdout == "closed\n")
    }

    @Test func timeoutKillsTheChild() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        let result = try await ChildProcess.run(["sleep", "30"], timeout: .milliseconds(200))
        #expect(result.timedOut)
        #expect(result.status == 128 + SIGKILL)
        #expect(clock.now - start < .seconds(20))
    }

    @Test func signalsAreReportedAs128PlusTheSignal() async throws {
        let result = try await ChildProcess.run(["sh", "-c", "kill -TERM $$"])
        #expect(result.status == 128 + SIGTERM)
        #expect(!result.timedOut)
    }

    @Test func blockingVariantBehavesTheSame() throws {
        let result = try ChildProcess.runBlocking(["sh", "-c", "printf ok; exit 4"])
        #expect(result.status == 4)
        #expect(result.stdout == "ok")
    }

    @Test func aMissingProgramIsAnErrorNamingIt() async throws {
        do {
            _ = try await ChildProcess.run(["/nonexistent/jv-no-such-program"])
            Issue.record("spawning a missing program succeeded")
        } catch {
            #expect(error.call == "posix_spawnp")
            #expect(error.description.contains("/nonexistent/jv-no-such-program"))
        }
    }

    @Test func findsThePackagesExecutables() {
        #expect(ChildProcess.builtExecutable("jarvis-voice").map { $0.hasSuffix("/jarvis-voice") } == true)
        #expect(ChildProcess.builtExecutable("jv-no-such-executable") == nil)
    }
}
