import Glibc

/// Follows the service's stderr file: prints each complete line with a prefix (without the journald
/// `<N>` priority) and remembers the engine's state changes and the `turn:` line.
struct DemoServiceLog: ~Copyable {
    let path: String
    private var fd: Int32 = -1
    private var pending: [UInt8] = []
    /// States in the order the service entered them, starting with the first `from` state.
    private(set) var states: [String] = []
    private(set) var turnLine: String?
    /// Lines logged at error priority or worse (`<0>`…`<3>`).
    private(set) var errors: [String] = []

    init(path: String) { self.path = path }

    deinit { if fd >= 0 { close(fd) } }

    /// Reads what was appended since the last call and prints the complete lines.
    mutating func pump() {
        if fd < 0 {
            fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd < 0 { return }
        }
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            pending += chunk[0..<n]
        }
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            let line = String(decoding: pending[..<newline], as: UTF8.self)
            pending.removeSubrange(...newline)
            take(line)
        }
    }

    private mutating func take(_ raw: String) {
        var line = Substring(raw)
        var priority = 6
        if line.hasPrefix("<"), let close = line.firstIndex(of: ">"), let value = Int(line[line.index(after: line.startIndex)..<close]) {
            priority = value
            line = line[line.index(after: close)...]
        }
        print("  service | \(line)")
        fflush(nil)
        if priority <= 3 { errors.append(String(line)) }
        if let range = line.firstRange(of: "state: ") {
            // "state: A -> B (cause)"
            let change = line[range.upperBound...].split(separator: " ")
            if change.count >= 3, change[1] == "->" {
                if states.isEmpty { states.append(String(change[0])) }
                states.append(String(change[2]))
            }
        }
        if let range = line.firstRange(of: "turn: ") { turnLine = String(line[range.lowerBound...]) }
    }

    var hasSpoken: Bool { states.contains("ai_speaking") }
}
