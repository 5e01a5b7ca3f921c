import Glibc
import TestProcess

/// A real server or encoder a test runs beside it (icecast2, nginx, ffmpeg): a `BackgroundProcess` whose
/// stdout and stderr go to files in a directory, read back into error messages. Stopped with SIGTERM by
/// `stop()`; one still running when released is killed (SIGKILL) and reaped by `BackgroundProcess`.
public final class ServerProcess: Sendable {
    public let name: String
    private let process: BackgroundProcess
    private let logFiles: [String]
    /// Replaced in `log` (a password on the command line can come back in an error line).
    private let secrets: [String]

    /// Starts `argv` with its output in `<name>-stdout.log` and `<name>-stderr.log` in `directory`.
    public init(_ argv: [String], name: String, logsIn directory: TemporaryDirectory, secrets: [String] = []) throws {
        let stdout = directory.file("\(name)-stdout.log")
        let stderr = directory.file("\(name)-stderr.log")
        process = try BackgroundProcess(argv, stdout: .file(stdout), stderr: .file(stderr))
        self.name = name
        logFiles = [stderr, stdout]
        self.secrets = secrets.filter { !$0.isEmpty }
    }

    /// The last 4,000 characters of what the process wrote (stderr, then stdout), secrets masked.
    public var log: String {
        var text = logFiles.compactMap { TestFiles.readText($0) }.filter { !$0.isEmpty }.joined(separator: "\n")
        for secret in secrets { text = text.replacing(secret, with: "***") }
        return text.count > 4_000 ? "…" + text.suffix(4_000) : text
    }

    /// The exit code once the process has exited (128 + signal if killed), else nil.
    public var exitStatus: Int32? { process.exitStatus }

    /// Polls `ready` every 50 ms until it holds. Throws with the log when the process exits first (`exited`
    /// set) or `timeout` passes: "NAME did not WHAT within N s; its log: ...".
    public func waitForIt(to what: String, within timeout: Duration, _ ready: () async -> Bool) async throws(ServerProcessError) {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await ready() { return }
            if let status = exitStatus {
                throw ServerProcessError(description: "\(name) exited with status \(status) before it could \(what); its log:\n\(log)", exited: true)
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        if await ready() { return }
        throw ServerProcessError(description: "\(name) did not \(what) within \(timeout.components.seconds) s; its log:\n\(log)")
    }

    /// SIGTERM, then SIGKILL if it has not exited after `grace`; returns once it is reaped.
    public func stop(grace: Duration = .seconds(5)) async {
        guard process.signal(SIGTERM) else { return }
        if await process.wait(timeout: grace) == nil {
            process.signal(SIGKILL)
            _ = await process.wait(timeout: .seconds(5))
        }
    }

    /// A port for a server that binds it itself: one the kernel picks (`ReservedPort.fresh()`), released
    /// at once. Another socket can take it before the server binds; the servers then start again on a new one.
    static func freePort() throws -> Int { try ReservedPort.fresh().port }

    /// Runs `launch` on a fresh port; again, up to `attempts` times, when the server exited at startup
    /// (the port was taken in between).
    static func onFreePort<T>(attempts: Int = 3, _ launch: (Int) async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await launch(try freePort())
            } catch let error as ServerProcessError where error.exited && attempt < attempts {
                attempt += 1
            }
        }
    }
}

/// Why a server or encoder did not start or do what was asked, in plain words with its log.
public struct ServerProcessError: Error, CustomStringConvertible {
    public var description: String
    /// The process had exited: a port taken between choosing and binding it ends like this.
    public var exited = false

    public init(description: String, exited: Bool = false) {
        self.description = description
        self.exited = exited
    }
}
