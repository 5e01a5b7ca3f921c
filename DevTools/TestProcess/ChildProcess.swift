/// Runs a child process for tests: the one place test targets spawn programs.
///
/// The child gets stdin from /dev/null (or a file), stdout/stderr captured, discarded or written to
/// a file, the parent's environment plus `environment`, and no other descriptor: everything >= 3 is
/// closed before exec. Suites run in parallel in one process, and NIO's sockets are not
/// close-on-exec; a child holding a stand-in's listening socket would keep it accepting after the
/// stand-in stopped (clients then see "connection reset" instead of "refused").
///
/// Waiting never blocks a thread of the cooperative pool (in-process servers the child talks to
/// need those): `waitpid(WNOHANG)` is polled with short `Task.sleep`s. After `timeout` the child is
/// killed with SIGKILL and the result says `timedOut`.
public enum ChildProcess {
    public enum Input: Sendable {
        case devNull
        case file(String)
    }

    public enum Output: Sendable {
        /// Captured into a private temporary file and returned as text.
        case capture
        /// Written to this path (created or truncated, mode 0644).
        case file(String)
        case discard
    }

    public struct Result: Sendable, CustomStringConvertible {
        /// The exit code, or 128 + the signal number if the child was killed.
        public var status: Int32
        /// Captured text ("" unless the stream was `.capture`).
        public var stdout: String
        public var stderr: String
        public var timedOut: Bool

        public var description: String {
            "status \(status)\(timedOut ? " (timed out, killed)" : "")\nstdout: \(stdout)\nstderr: \(stderr)"
        }
    }

    /// Runs `argv` (`argv[0]` is a path, or a name looked up in PATH) and waits for it.
    public static func run(
        _ argv: [String],
        environment: [String: String] = [:],
        stdin: Input = .devNull,
        stdout: Output = .capture,
        stderr: Output = .capture,
        timeout: Duration = .seconds(120)
    ) async throws(ChildProcessError) -> Result {
        let child = try Running(argv, environment: environment, stdin: stdin, stdout: stdout, stderr: stderr)
        defer { child.removeCaptures() }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var pause = Duration.milliseconds(1)
        while true {
            if let result = try child.finished(deadline: deadline) { return result }
            // Not cancellable on purpose: the child must always be reaped.
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(20))
        }
    }

    /// `run` for synchronous contexts (lazy static initializers): the same child setup, but the calling
    /// thread sleeps between polls. Never call it from async code that a server in this process needs.
    public static func runBlocking(
        _ argv: [String],
        environment: [String: String] = [:],
        stdin: Input = .devNull,
        stdout: Output = .capture,
        stderr: Output = .capture,
        timeout: Duration = .seconds(120)
    ) throws(ChildProcessError) -> Result {
        let child = try Running(argv, environment: environment, stdin: stdin, stdout: stdout, stderr: stderr)
        defer { child.removeCaptures() }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            if let result = try child.finished(deadline: deadline) { return result }
            SpawnCalls.sleep(milliseconds: 5)
        }
    }

    /// A spawned child and its capture files.
    private struct Running {
        let pid: Int32
        let program: String
        let outCapture: SpawnCalls.Capture?
        let errCapture: SpawnCalls.Capture?

        init(_ argv: [String], environment: [String: String], stdin: Input, stdout: Output, stderr: Output)
            throws(ChildProcessError)
        {
            guard let program = argv.first else {
                throw ChildProcessError(call: "posix_spawnp", program: "", errno: SpawnCalls.invalidArgument)
            }
            let outCapture = try SpawnCalls.captureFile(for: stdout)
            let errCapture: SpawnCalls.Capture?
            do { errCapture = try SpawnCalls.captureFile(for: stderr) } catch {
                outCapture?.remove()
                throw error
            }
            do {
                pid = try SpawnCalls.spawn(
                    argv, environment: environment, stdin: stdin,
                    stdout: SpawnCalls.Target(stdout, capture: outCapture),
                    stderr: SpawnCalls.Target(stderr, capture: errCapture))
            } catch {
                outCapture?.remove()
                errCapture?.remove()
                throw error
            }
            self.program = program
            self.outCapture = outCapture
            self.errCapture = errCapture
        }

        /// The result once the child exited; past `deadline` it is killed (SIGKILL) and reaped.
        func finished(deadline: ContinuousClock.Instant) throws(ChildProcessError) -> Result? {
            var timedOut = false
            var status = try SpawnCalls.reap(pid, program: program)
            if status == nil && ContinuousClock.now >= deadline {
                SpawnCalls.kill(pid)
                status = try SpawnCalls.reapBlocking(pid, program: program)
                timedOut = true
            }
            guard let status else { return nil }
            return Result(
                status: status, stdout: outCapture?.read() ?? "", stderr: errCapture?.read() ?? "",
                timedOut: timedOut)
        }

        func removeCaptures() {
            outCapture?.remove()
            errCapture?.remove()
        }
    }

    /// The directory of the running test executable (e.g. `.build/debug`).
    public static var buildDirectory: String? { SpawnCalls.executableDirectory() }

    /// A package executable (`jarvis-voice`, `rtcheck-probe`) built next to the test binary, looked up
    /// in the test binary's directory and up to three levels above it (bundle layouts).
    public static func builtExecutable(_ name: String = "jarvis-voice") -> String? {
        guard var directory = buildDirectory else { return nil }
        for _ in 0..<4 {
            let candidate = directory + "/" + name
            if SpawnCalls.isExecutable(candidate) { return candidate }
            guard let slash = directory.lastIndex(of: "/"), slash != directory.startIndex else { return nil }
            directory = String(directory[..<slash])
        }
        return nil
    }
}

/// A spawn or wait that failed, naming the C function and the program.
public struct ChildProcessError: Error, CustomStringConvertible {
    public var call: String
    public var program: String
    public var errno: Int32

    public var description: String {
        "\(call) for \(program.isEmpty ? "(no program)" : program) failed: \(SpawnCalls.errorText(errno)) (errno \(errno))"
    }
}
