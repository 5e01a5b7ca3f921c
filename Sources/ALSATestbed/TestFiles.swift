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

/// A fresh directory under /tmp, removed with its files when released.
public final class TemporaryDirectory {
    public let path: String

    public init() {
        var template = Array("/tmp/jarvis-voice-test-XXXXXX".utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    public func file(_ name: String) -> String { path + "/" + name }

    deinit {
        TestFiles.removeTree(path)
    }
}

/// Deterministic pseudo-random samples (xorshift), for signals that correlate only with themselves.
public func testNoise(count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15, amplitude: Int16 = 8000) -> [Int16] {
    var state = seed
    return (0..<count).map { _ in
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return Int16(truncatingIfNeeded: Int64(state % UInt64(2 * Int(amplitude) + 1)) - Int64(amplitude))
    }
}
