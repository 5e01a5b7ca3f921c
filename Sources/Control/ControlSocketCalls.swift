import Basics
import Glibc

/// The only caller of POSIX socket and file APIs in this module: socket-path housekeeping for the
/// server (NIO does the serving) and the blocking client `jarvis-voice ctl` uses.
enum ControlSocketCalls {
    static func errnoText(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// What is at `path` now.
    enum PathState: Equatable {
        case absent
        case socket(device: UInt64, inode: UInt64)
        case other
    }

    static func pathState(_ path: String) throws(ControlServerError) -> PathState {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT { return .absent }
            throw .system(function: "lstat", path: path, code: code, detail: errnoText(code))
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else { return .other }
        return .socket(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Creates missing parent directories (mode 0755; the socket itself is 0660).
    static func createParentDirectories(of path: String) throws(ControlServerError) {
        var prefix = ""
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).dropLast()
        for part in parts {
            prefix += "/" + part
            if mkdir(prefix, 0o755) != 0 {
                let code = errno
                if code == EEXIST { continue }
                throw .system(function: "mkdir", path: prefix, code: code, detail: errnoText(code))
            }
        }
    }

    /// True when something accepts a connection on the socket at `path` (a live server).
    static func somethingAnswers(_ path: String) throws(ControlServerError) -> Bool {
        let fd = try openSocket(path: path)
        defer { close(fd) }
        switch connect(fd, path: path) {
        case 0: return true
        case ECONNREFUSED, ENOENT: return false
        case let code: throw .system(function: "connect", path: path, code: code, detail: errnoText(code))
        }
    }

    static func unlinkSocket(_ path: String) throws(ControlServerError) {
        if unlink(path) != 0 && errno != ENOENT {
            let code = errno
            throw .system(function: "unlink", path: path, code: code, detail: errnoText(code))
        }
    }

    static func setMode(_ path: String, _ mode: mode_t) throws(ControlServerError) {
        guard chmod(path, mode) == 0 else {
            let code = errno
            throw .system(function: "chmod", path: path, code: code, detail: errnoText(code))
        }
    }

    /// Removes the socket file at shutdown, unless another process has replaced it meanwhile.
    static func removeIfSame(_ path: String, as identity: PathState) {
        if let current = try? pathState(path), current == identity { unlink(path) }
    }

    // MARK: server

    /// NIO creates listening and accepted sockets without SOCK_CLOEXEC; the daemon's control socket
    /// must not leak into children it runs (a child holding the listener would keep accepting on it).
    /// Returns 0 or the errno of fcntl.
    static func setCloseOnExec(_ fd: Int32) -> Int32 {
        let flags = fcntl(fd, F_GETFD)
        guard flags >= 0, fcntl(fd, F_SETFD, flags | FD_CLOEXEC) == 0 else { return errno }
        return 0
    }

    // MARK: client

    private static func openSocket(path: String) throws(ControlServerError) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            let code = errno
            throw .system(function: "socket", path: path, code: code, detail: errnoText(code))
        }
        return fd
    }

    /// connect(2) to a Unix socket path; returns 0 or the errno.
    private static func connect(_ fd: Int32, path: String) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return ENAMETOOLONG }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
        while true {
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
            }
            if result == 0 { return 0 }
            if errno == EINTR { continue }
            return errno
        }
    }

    /// A blocking client connection with a deadline on every operation (for `ctl`).
    final class ClientConnection {
        private let fd: Int32
        private let path: String

        init(path: String) throws(ControlClientError) {
            let fd: Int32
            do { fd = try ControlSocketCalls.openSocket(path: path) } catch { throw .io(error.description) }
            let code = ControlSocketCalls.connect(fd, path: path)
            guard code == 0 else {
                close(fd)
                switch code {
                case ENOENT, ECONNREFUSED, ENOTSOCK: throw .notRunning(path: path)
                case EACCES, EPERM: throw .permissionDenied(path: path)
                default: throw .io("connect to \(path) failed: \(ControlSocketCalls.errnoText(code))")
                }
            }
            self.fd = fd
            self.path = path
        }

        deinit { close(fd) }

        /// Waits until `events` are ready or the deadline passes.
        private func waitFor(_ events: Int16, deadline: ContinuousClock.Instant, what: String) throws(ControlClientError) {
            while true {
                let remaining = ContinuousClock.now.duration(to: deadline)
                guard remaining > .zero else { throw .timedOut(what) }
                let ms = Int32(clamping: remaining.wholeMilliseconds + 1)
                var pfd = pollfd(fd: fd, events: events, revents: 0)
                let result = poll(&pfd, 1, ms)
                if result > 0 { return }
                if result < 0 && errno != EINTR {
                    throw .io("poll on \(path) failed: \(ControlSocketCalls.errnoText(errno))")
                }
            }
        }

        func send(_ bytes: [UInt8], deadline: ContinuousClock.Instant) throws(ControlClientError) {
            var offset = 0
            while offset < bytes.count {
                try waitFor(Int16(POLLOUT), deadline: deadline, what: "sending the request")
                let written = bytes.withUnsafeBytes { raw in
                    Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                }
                if written < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    throw .io("sending to \(path) failed: \(ControlSocketCalls.errnoText(errno))")
                }
                offset += written
            }
        }

        /// Reads up to the first newline (excluded), at most `maxBytes`.
        func readLine(maxBytes: Int, deadline: ContinuousClock.Instant) throws(ControlClientError) -> [UInt8] {
            var line: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                try waitFor(Int16(POLLIN), deadline: deadline, what: "waiting for the answer")
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if count < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    throw .io("reading from \(path) failed: \(ControlSocketCalls.errnoText(errno))")
                }
                if count == 0 {
                    if line.isEmpty { throw .io("the service closed the connection without answering") }
                    return line
                }
                if let newline = chunk[0..<count].firstIndex(of: UInt8(ascii: "\n")) {
                    line += chunk[0..<newline]
                    return line
                }
                line += chunk[0..<count]
                if line.count > maxBytes { throw .io("the answer is longer than \(maxBytes) bytes") }
            }
        }
    }
}

extension ControlSocketCalls {
    static func isAddressInUse(_ code: Int32) -> Bool { code == EADDRINUSE }
}
