import Glibc

/// The player's (and the voice volume's) only file-system calls: read a small file, replace one atomically (temp + fsync +
/// rename, mode 0600: feed URLs may carry tokens), append a line, make the directory. Errors name the call and the path.
public struct MediaStateFiles: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        var function: String
        var path: String
        var code: Int32
        public var description: String { "\(function)(\(path)) failed: \(String(cString: strerror(code)))" }
    }

    public let directory: String

    public init(directory: String) { self.directory = directory }

    public func path(_ name: String) -> String { directory + "/" + name }

    /// Creates the directory (one level) if missing.
    public func prepare() throws(Failure) {
        if mkdir(directory, 0o755) != 0, errno != EEXIST { throw Failure(function: "mkdir", path: directory, code: errno) }
        guard access(directory, W_OK) == 0 else { throw Failure(function: "access", path: directory, code: errno) }
    }

    /// nil when the file does not exist; at most `limit` bytes.
    public func read(_ name: String, limit: Int = 16 << 20) throws(Failure) -> [UInt8]? {
        let file = path(name)
        let fd = retrying { open(file, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw Failure(function: "open", path: file, code: errno)
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < limit {
            let count = buffer.withUnsafeMutableBytes { raw in retrying { Glibc.read(fd, raw.baseAddress, raw.count) } }
            if count < 0 { throw Failure(function: "read", path: file, code: errno) }
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        return bytes
    }

    /// Writes `bytes` to a temporary file next to `name`, syncs it and renames it over `name`.
    public func replace(_ name: String, with bytes: [UInt8]) throws(Failure) {
        let file = path(name)
        let temporary = file + ".tmp"
        let fd = retrying { open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { throw Failure(function: "open", path: temporary, code: errno) }
        do throws(Failure) {
            try writeAll(fd, bytes, path: temporary)
            if fsync(fd) != 0 { throw Failure(function: "fsync", path: temporary, code: errno) }
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        fchmodPath(temporary)
        guard rename(temporary, file) == 0 else {
            let code = errno
            unlink(temporary)
            throw Failure(function: "rename", path: file, code: code)
        }
    }

    /// Appends `bytes` (one whole JSON line) to `name`, creating it 0600.
    func append(_ name: String, _ bytes: [UInt8]) throws(Failure) {
        let file = path(name)
        let fd = retrying { open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { throw Failure(function: "open", path: file, code: errno) }
        defer { close(fd) }
        try writeAll(fd, bytes, path: file)
    }

    private func fchmodPath(_ file: String) {
        _ = chmod(file, 0o600)
    }

    private func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { raw in
                retrying { Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset) }
            }
            if count < 0 { throw Failure(function: "write", path: path, code: errno) }
            offset += count
        }
    }

    private func retrying<T: BinaryInteger>(_ call: () -> T) -> T {
        while true {
            let result = call()
            if result < 0 && errno == EINTR { continue }
            return result
        }
    }
}
