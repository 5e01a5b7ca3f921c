#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under /tmp for one test, removed on deinit.
final class TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/jarvis-config-test-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(created != nil, "mkdtemp failed")
        path = String(cString: created!)
    }

    deinit {
        if let dir = opendir(path) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
                }
                if name != "." && name != ".." { unlink(path + "/" + name) }
            }
            closedir(dir)
        }
        rmdir(path)
    }

    /// Writes `contents` to `name` with `mode` and returns the full path.
    @discardableResult
    func write(_ name: String, _ contents: String, mode: mode_t = 0o600) -> String {
        let file = path + "/" + name
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, mode)
        precondition(fd >= 0, "cannot create \(file)")
        let bytes = Array(contents.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        fchmod(fd, mode)  // not subject to the umask
        close(fd)
        return file
    }
}

/// Reads a text file of the repository (tests run from the package root or find it via #filePath).
func repositoryFile(_ relativePath: String, from filePath: String = #filePath) -> String? {
    // #filePath = <root>/Tests/ConfigurationTests/<file>.swift
    var root = filePath
    for _ in 0..<3 { root = String(root[..<(root.lastIndex(of: "/") ?? root.startIndex)]) }
    return readTextFile(root + "/" + relativePath)
}

func readTextFile(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
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

struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// The descriptors open in this process; glibc's spawn ignores closing one closed in the meantime.
private func openDescriptors() -> [Int32] {
    guard let dir = opendir("/proc/self/fd") else { return [] }
    defer { closedir(dir) }
    let own = dirfd(dir)
    var fds: [Int32] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
        }
        if let fd = Int32(name), fd != own { fds.append(fd) }
    }
    return fds
}

/// Runs an executable with pipes for stdout and stderr and waits for it.
func runProcess(_ executable: String, _ arguments: [String]) -> ProcessResult? {
    var outPipe: [Int32] = [0, 0]
    var errPipe: [Int32] = [0, 0]
    guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else { return nil }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
    posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
    posix_spawn_file_actions_addclose(&actions, outPipe[0])
    posix_spawn_file_actions_addclose(&actions, errPipe[0])
    // No other inherited descriptors: a concurrently running test's listening socket held open by the
    // child keeps a "stopped" stand-in server accepting (Jarvis offline tests then hang, not fail fast).
    for fd in openDescriptors() where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
    close(outPipe[1])
    close(errPipe[1])
    defer {
        close(outPipe[0])
        close(errPipe[0])
    }
    guard spawned == 0 else { return nil }
    func drain(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
    let stdout = drain(outPipe[0])
    let stderr = drain(errPipe[0])
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    // WIFEXITED/WEXITSTATUS are macros; decode by hand.
    let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    return ProcessResult(status: exitStatus, stdout: stdout, stderr: stderr)
}

/// The `jarvis-voice` binary built next to the test bundle.
func builtExecutable(_ name: String) -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    var directory = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    // The test runner may be <dir>/X.xctest or inside a bundle directory; walk up looking for it.
    for _ in 0..<4 {
        directory = String(directory[..<(directory.lastIndex(of: "/") ?? directory.startIndex)])
        let candidate = directory + "/" + name
        if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
}
