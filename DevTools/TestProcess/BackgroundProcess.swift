import Glibc
import Synchronization

/// A child that keeps running while the test talks to it (a service): started like `ChildProcess.run`
/// (no inherited descriptors), its output written to files, signalled and waited for explicitly.
/// A child still running at deinit is killed and reaped.
public final class BackgroundProcess: Sendable {
    public let pid: Int32
    private let program: String
    private let status = Mutex<Int32?>(nil)

    public init(
        _ argv: [String], environment: [String: String] = [:], stdout: ChildProcess.Output = .discard,
        stderr: ChildProcess.Output = .discard
    ) throws(ChildProcessError) {
        guard let program = argv.first else {
            throw ChildProcessError(call: "posix_spawnp", program: "", errno: SpawnCalls.invalidArgument)
        }
        func target(_ output: ChildProcess.Output) -> SpawnCalls.Target {
            switch output {
            case .file(let path): .path(path)
            case .capture, .discard: .devNull  // capturing needs a file the test can read: use .file
            }
        }
        pid = try SpawnCalls.spawn(argv, environment: environment, stdin: .devNull, stdout: target(stdout), stderr: target(stderr))
        self.program = program
    }

    /// Sends `signal` (e.g. SIGTERM, SIGHUP); false if the child is gone.
    @discardableResult
    public func signal(_ signal: Int32) -> Bool {
        guard exitStatus == nil else { return false }
        return SpawnCalls.signal(pid, signal)
    }

    /// The exit code (128 + signal if killed) once the child has exited, else nil. Never blocks.
    public var exitStatus: Int32? {
        status.withLock { stored in
            if stored == nil { stored = try? SpawnCalls.reap(pid, program: program) }
            return stored
        }
    }

    /// Waits up to `timeout` for the child to exit; nil if it is still running.
    public func wait(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            if let status = exitStatus { return status }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return exitStatus
    }

    deinit {
        if exitStatus == nil {
            SpawnCalls.kill(pid)
            _ = try? SpawnCalls.reapBlocking(pid, program: program)
        }
    }
}
