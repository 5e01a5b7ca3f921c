import Control
import Glibc
import Synchronization

/// A fresh directory under /tmp, removed (recursively, one level of subdirectories) on deinit.
final class TemporaryDirectory: Sendable {
    let path: String

    init() {
        var template = Array("/tmp/jv-control-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(created != nil, "mkdtemp failed")
        path = String(cString: created!)
    }

    deinit { Self.remove(path) }

    private static func remove(_ directory: String) {
        if let dir = opendir(directory) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
                }
                if name == "." || name == ".." { continue }
                let full = directory + "/" + name
                if entry.pointee.d_type == UInt8(DT_DIR) { remove(full) } else { unlink(full) }
            }
            closedir(dir)
        }
        rmdir(directory)
    }

    func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    func write(_ name: String, _ contents: String, mode: mode_t = 0o600) -> String {
        let file = file(name)
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, mode)
        precondition(fd >= 0, "cannot create \(file)")
        let bytes = Array(contents.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        fchmod(fd, mode)
        close(fd)
        return file
    }
}

func readText(_ path: String) -> String {
    guard let file = fopen(path, "r") else { return "" }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count <= 0 { break }
        bytes += buffer[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

func fileMode(_ path: String) -> mode_t? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return info.st_mode
}

struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// The `jarvis-voice` binary built next to the test bundle.
func builtExecutable(_ name: String = "jarvis-voice") -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    var directory = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    for _ in 0..<4 {
        directory = String(directory[..<(directory.lastIndex(of: "/") ?? directory.startIndex)])
        let candidate = directory + "/" + name
        if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
}

/// Runs an executable with stdout/stderr captured to files and waits for it without blocking a
/// cooperative thread (the in-test server it talks to needs them).
func runProcess(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                in directory: TemporaryDirectory) async -> ProcessResult? {
    let outPath = directory.file("stdout-\(UInt32.random(in: 0...UInt32.max))")
    let errPath = directory.file("stderr-\(UInt32.random(in: 0...UInt32.max))")
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    var env: [String: String] = [:]
    var index = 0
    while let entry = environ[index] {
        let text = String(cString: entry)
        if let eq = text.firstIndex(of: "=") { env[String(text[..<eq])] = String(text[text.index(after: eq)...]) }
        index += 1
    }
    for (key, value) in environment { env[key] = value }
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    var pid: pid_t = 0
    guard posix_spawn(&pid, executable, &actions, nil, argv, envp) == 0 else { return nil }
    var status: Int32 = 0
    while true {
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid { break }
        if result < 0 && errno != EINTR { return nil }
        try? await Task.sleep(for: .milliseconds(5))
    }
    let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    return ProcessResult(status: exitStatus, stdout: readText(outPath), stderr: readText(errPath))
}

/// A handler that records what it got and answers from a closure.
final class RecordingHandler: ControlHandler {
    private let received = Mutex<[ControlCommand]>([])
    private let answer: @Sendable (ControlCommand) async -> ControlResponse

    init(_ answer: @escaping @Sendable (ControlCommand) async -> ControlResponse = RecordingHandler.standard) {
        self.answer = answer
    }

    var commands: [ControlCommand] { received.withLock { $0 } }

    func handle(_ command: ControlCommand) async -> ControlResponse {
        received.withLock { $0.append(command) }
        return await answer(command)
    }

    static let idleStatus = ServiceStatus(state: "idle", realtimeConnected: false, jarvisSessionID: nil,
                                          media: MediaStatus(state: .stopped, volume: 0.5))

    @Sendable static func standard(_ command: ControlCommand) async -> ControlResponse {
        switch command {
        case .status: .status(idleStatus)
        case .reset: .failed("nothing to reset")
        default: command.isMedia ? .notAvailableYet(command) : .done("ok: \(command.verb)")
        }
    }
}

/// Raw socket helpers for tests (stale sockets, silent clients).
enum RawSocket {
    static func address(_ path: String) -> (sockaddr_un, socklen_t) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return (address, socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1))
    }

    /// Leaves a socket file nobody listens on (what a crashed instance leaves behind).
    static func makeStale(_ path: String) {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var (address, length) = address(path)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        precondition(bound == 0, "bind failed")
        close(fd)
    }

    /// A connected client that sends `bytes` (maybe nothing) and keeps the connection open.
    static func connect(_ path: String, sending bytes: [UInt8] = []) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var (address, length) = address(path)
        let result = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) } }
        precondition(result == 0, "connect failed")
        if !bytes.isEmpty { _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }
        return fd
    }

    /// Reads until EOF (or `timeoutMs`) and returns what arrived.
    static func readAll(_ fd: Int32, timeoutMs: Int32 = 10_000) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, timeoutMs) > 0 else { break }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

private final class ThreadBody: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}

/// Runs blocking code (socket clients, polls) on its own thread so it never occupies one of the
/// few cooperative threads the server under test needs.
func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let work = Unmanaged.passRetained(ThreadBody { continuation.resume(with: Result { try body() }) })
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { context in
            Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, work.toOpaque())
        if created == 0 {
            pthread_detach(thread)
        } else {
            work.takeRetainedValue().run()
        }
    }
}
