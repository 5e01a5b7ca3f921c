import CPosixShim
import Glibc

/// The only caller of the POSIX process API in this module.
enum SpawnCalls {
    /// A private, already unlinked temporary file a child writes one stream into.
    struct Capture {
        let fd: Int32

        func read() -> String {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            var offset: off_t = 0
            while true {
                let n = pread(fd, &chunk, chunk.count, offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                bytes += chunk[0..<n]
                offset += off_t(n)
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        func remove() { close(fd) }
    }

    /// Where one of the child's output streams goes.
    enum Target {
        case descriptor(Int32)
        case path(String)
        case devNull

        init(_ output: ChildProcess.Output, capture: Capture?) {
            switch output {
            case .capture: self = .descriptor(capture!.fd)
            case .file(let path): self = .path(path)
            case .discard: self = .devNull
            }
        }
    }

    static func captureFile(for output: ChildProcess.Output) throws(ChildProcessError) -> Capture? {
        guard case .capture = output else { return nil }
        var template = Array("/tmp/jv-child-output-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw ChildProcessError(call: "mkstemp", program: "", errno: errno) }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        // Close-on-exec so that children spawned meanwhile by other code do not inherit it; the dup2
        // onto the child's stdout/stderr clears the flag on the copy.
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return Capture(fd: fd)
    }

    static func spawn(
        _ argv: [String], environment: [String: String], stdin: ChildProcess.Input, stdout: Target, stderr: Target
    ) throws(ChildProcessError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        switch stdin {
        case .devNull: posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        case .file(let path): posix_spawn_file_actions_addopen(&actions, 0, path, O_RDONLY, 0)
        }
        for (fd, target) in [(Int32(1), stdout), (Int32(2), stderr)] {
            switch target {
            case .descriptor(let source): posix_spawn_file_actions_adddup2(&actions, source, fd)
            case .path(let path): posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            case .devNull: posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_WRONLY, 0)
            }
        }
        // After the dup2s: the child keeps 0, 1, 2 and nothing else.
        let closing = cshim_spawn_actions_close_from(&actions, 3)
        guard closing == 0 else {
            throw ChildProcessError(call: "posix_spawn_file_actions_addclosefrom_np", program: argv[0], errno: closing)
        }

        // Default dispositions and an empty mask: the test process may ignore or block signals
        // (ServiceLifecycle ignores SIGTERM/SIGINT to watch them), and children must not inherit that.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        var merged: [String: String] = [:]
        var entry = environ
        while let text = entry.pointee.map({ String(cString: $0) }) {
            if let eq = text.firstIndex(of: "=") { merged[String(text[..<eq])] = String(text[text.index(after: eq)...]) }
            entry += 1
        }
        merged.merge(environment) { _, new in new }
        let cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        let cEnv: [UnsafeMutablePointer<CChar>?] = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in cArgs + cEnv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, argv[0], &actions, &attributes, cArgs, cEnv)
        guard result == 0 else { throw ChildProcessError(call: "posix_spawnp", program: argv[0], errno: result) }
        return pid
    }

    /// The decoded status if the child has exited, nil while it runs.
    static func reap(_ pid: pid_t, program: String) throws(ChildProcessError) -> Int32? {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { return decode(status) }
            if result == 0 { return nil }
            if errno != EINTR { throw ChildProcessError(call: "waitpid", program: program, errno: errno) }
        }
    }

    static func reapBlocking(_ pid: pid_t, program: String) throws(ChildProcessError) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { throw ChildProcessError(call: "waitpid", program: program, errno: errno) }
        }
        return decode(status)
    }

    static let invalidArgument = EINVAL

    static func sleep(milliseconds: Int) {
        var pause = timespec(tv_sec: 0, tv_nsec: milliseconds * 1_000_000)
        var left = timespec()
        while nanosleep(&pause, &left) < 0 && errno == EINTR { pause = left }
    }

    static func kill(_ pid: pid_t) { _ = Glibc.kill(pid, SIGKILL) }

    static func signal(_ pid: pid_t, _ signal: Int32) -> Bool { Glibc.kill(pid, signal) == 0 }

    /// WIFEXITED/WEXITSTATUS are macros Swift cannot import: exit code, or 128 + signal.
    private static func decode(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    static func executableDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, Int(PATH_MAX))
        guard n > 0 else { return nil }
        let path = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }

    static func isExecutable(_ path: String) -> Bool { access(path, X_OK) == 0 }

    static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }
}
