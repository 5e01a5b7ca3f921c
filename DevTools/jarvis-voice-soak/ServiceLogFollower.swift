import Glibc
import TestProcess

/// Follows the service's stderr file (journald-style `<N>` priorities) and keeps what the endurance run
/// judges by: the engine's state changes and the per-turn `turn:` latency lines. Reads only what was
/// appended since the last call, so an hour of log costs nothing to follow.
struct ServiceLogFollower: ~Copyable {
    struct StateChange {
        var from: String
        var to: String
        var cause: String
        var at: Double
    }

    struct TurnLine {
        var firstAudioMs: Int?
        var answerAudioMs: Int?
        var at: Double
    }

    private var log: AppendedLines
    private(set) var states: [StateChange] = []
    private(set) var turns: [TurnLine] = []
    /// Lines at error priority or worse (`<0>`…`<3>`), the last few kept.
    private(set) var errorCount = 0
    private(set) var lastErrors: [String] = []
    private(set) var lines = 0

    init(path: String) { log = AppendedLines(path: path) }

    /// The state the engine is in according to the log ("idle" before the first change).
    var state: String { states.last?.to ?? "idle" }

    mutating func pump(now: Double) {
        for line in log.next() { take(line, now: now) }
    }

    private mutating func take(_ raw: String, now: Double) {
        lines += 1
        var line = Substring(raw)
        var priority = 6
        if line.hasPrefix("<"), let close = line.firstIndex(of: ">"), let value = Int(line[line.index(after: line.startIndex)..<close]) {
            priority = value
            line = line[line.index(after: close)...]
        }
        if priority <= 3 {
            errorCount += 1
            lastErrors.append(String(line))
            if lastErrors.count > 5 { lastErrors.removeFirst() }
        }
        if let range = line.firstRange(of: "state: ") {
            // "state: A -> B (cause)"
            let words = line[range.upperBound...].split(separator: " ", maxSplits: 3)
            if words.count >= 3, words[1] == "->" {
                let cause = words.count > 3 ? String(words[3].trimmingPrefix("(").prefix { $0 != ")" }) : ""
                states.append(StateChange(from: String(words[0]), to: String(words[2]), cause: cause, at: now))
            }
        }
        if let range = line.firstRange(of: "turn: ") {
            var turn = TurnLine(at: now)
            for field in line[range.upperBound...].split(separator: " ") {
                let pair = field.split(separator: "=", maxSplits: 1)
                guard pair.count == 2 else { continue }
                if pair[0] == "first_audio_ms" { turn.firstAudioMs = Int(pair[1]) }
                if pair[0] == "answer_audio_ms" { turn.answerAudioMs = Int(pair[1]) }
            }
            turns.append(turn)
        }
    }
}
