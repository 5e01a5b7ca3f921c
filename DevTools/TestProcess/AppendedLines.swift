import Glibc

/// The lines appended to a file since the last call (a child's stderr log, followed while it runs),
/// without rereading what was already taken. A partial last line waits for its newline.
public struct AppendedLines: ~Copyable {
    public let path: String
    private var fd: Int32 = -1
    private var pending: [UInt8] = []

    public init(path: String) { self.path = path }

    deinit { if fd >= 0 { close(fd) } }

    /// The complete lines appended since the last call; none while the file does not exist yet.
    public mutating func next() -> [String] {
        if fd < 0 {
            fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd < 0 { return [] }
        }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            pending += chunk[0..<n]
        }
        var lines: [String] = []
        var start = pending.startIndex
        while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: pending[start..<newline], as: UTF8.self))
            start = newline + 1
        }
        pending.removeSubrange(..<start)
        return lines
    }
}
