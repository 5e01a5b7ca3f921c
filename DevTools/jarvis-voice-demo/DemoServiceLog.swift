import Glibc
import TestProcess

/// Follows the service's stderr file: prints each complete line with a prefix (without the journald
/// `<N>` priority) and remembers the engine's state changes and the `turn:` line.
struct DemoServiceLog: ~Copyable {
    private var log: AppendedLines
    /// States in the order the service entered them, starting with the first `from` state.
    private(set) var states: [String] = []
    private(set) var turnLine: String?
    /// Lines logged at error priority or worse (`<0>`…`<3>`).
    private(set) var errors: [String] = []

    init(path: String) { log = AppendedLines(path: path) }

    /// Reads what was appended since the last call and prints the complete lines.
    mutating func pump() {
        for line in log.next() { take(line) }
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
