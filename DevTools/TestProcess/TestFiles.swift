import Glibc

public struct TestFileError: Error, CustomStringConvertible {
    public let operation: String
    public let path: String
    public let code: Int32
    public var description: String { "\(operation)(\"\(path)\") failed: \(String(cString: strerror(code)))" }
}

/// Small file helpers for tests (no Foundation).
public enum TestFiles {
    public static func write(_ bytes: [UInt8], to path: String) throws(TestFileError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw TestFileError(operation: "open", path: path, code: errno) }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw TestFileError(operation: "write", path: path, code: errno) }
            offset += n
        }
    }

    public static func write(samples: [Int16], to path: String) throws(TestFileError) {
        try write(samples.withUnsafeBytes { Array($0) }, to: path)
    }

    public static func read(_ path: String) throws(TestFileError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw TestFileError(operation: "open", path: path, code: errno) }
        defer { close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw TestFileError(operation: "read", path: path, code: errno) }
            if n == 0 { return result }
            result += chunk[0..<n]
        }
    }

    public static func readSamples(_ path: String) throws(TestFileError) -> [Int16] {
        let bytes = try read(path)
        return (0..<bytes.count / 2).map { Int16(bitPattern: UInt16(bytes[2 * $0]) | UInt16(bytes[2 * $0 + 1]) << 8) }
    }

    /// The file's bytes as text (lossy UTF-8), nil if it cannot be read.
    public static func readText(_ path: String) -> String? {
        (try? read(path)).map { String(decoding: $0, as: UTF8.self) }
    }

    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    public static func remove(_ path: String) { unlink(path) }

    /// Writes `secret` and a newline, owner-only (0600), as the service wants its key files.
    public static func writeSecret(_ secret: String, to path: String) throws(TestFileError) {
        try write(Array((secret + "\n").utf8), to: path)
        guard chmod(path, 0o600) == 0 else { throw TestFileError(operation: "chmod", path: path, code: errno) }
    }

    /// Removes `path` and everything below it.
    public static func removeTree(_ path: String) {
        if let dir = opendir(path) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                guard name != "." && name != ".." else { continue }
                let child = path + "/" + name
                if entry.pointee.d_type == UInt8(DT_DIR) { removeTree(child) } else { unlink(child) }
            }
            closedir(dir)
        }
        rmdir(path)
    }
}

/// A fresh directory under /tmp for one test, removed with everything in it when released (or by
/// `remove()`). The one temporary-directory helper of the tests.
public final class TemporaryDirectory: Sendable {
    public let path: String

    /// - Parameter prefix: names the directory (`/tmp/<prefix>-XXXXXX`), so a leftover says whose it is.
    public init(prefix: String = "jarvis-voice-test") {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp(/tmp/\(prefix)-XXXXXX) failed: \(String(cString: strerror(errno)))")
        path = String(cString: made!)
    }

    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `contents` to `name` with `mode` (not subject to the umask); returns the full path.
    @discardableResult
    public func write(_ name: String, _ contents: String, mode: mode_t = 0o600) -> String {
        write(name, bytes: Array(contents.utf8), mode: mode)
    }

    /// Writes raw `bytes` (e.g. not UTF-8) to `name` with `mode`; returns the full path.
    @discardableResult
    public func write(_ name: String, bytes: [UInt8], mode: mode_t = 0o600) -> String {
        let file = file(name)
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        precondition(fd >= 0, "cannot create \(file)")
        defer { close(fd) }
        precondition(bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count, "short write to \(file)")
        fchmod(fd, mode)
        return file
    }

    /// The text of `name`, nil if it cannot be read.
    public func read(_ name: String) -> String? { TestFiles.readText(file(name)) }

    /// Removes the directory and everything in it now (release does it too).
    public func remove() { TestFiles.removeTree(path) }

    deinit {
        TestFiles.removeTree(path)
    }
}
