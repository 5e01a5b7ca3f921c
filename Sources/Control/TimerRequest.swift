import Basics

/// What `ctl timer …` asks for (`add` takes a duration, or a time of day for an alarm).
public enum TimerRequest: Sendable, Equatable {
    case list
    /// `add DURATION [LABEL]`: DURATION like `90s`, `10m`, `1h30m`.
    case add(seconds: Int, label: String?)
    /// `add HH:MM [LABEL]`: an alarm at the next time the local clock shows HH:MM.
    case alarm(time: String, label: String?)
    /// `cancel LABEL|ID`.
    case cancel(String)
    /// `stop`: silence what rings.
    case stop

    /// From the words after `timer`.
    public init(_ text: String) throws(ControlCommandError) {
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let rest = words.dropFirst(2).joined(separator: " ")
        switch words.first {
        case "list" where words.count == 1: self = .list
        case "stop" where words.count == 1: self = .stop
        case "cancel" where words.count >= 2: self = .cancel(words.dropFirst().joined(separator: " "))
        case "add" where words.count >= 2 && words[1].contains(":"):
            self = .alarm(time: words[1], label: rest.isEmpty ? nil : rest)
        case "add" where words.count >= 2:
            guard let seconds = TimerDuration.seconds(words[1]) else { throw .invalidDuration(words[1]) }
            self = .add(seconds: seconds, label: rest.isEmpty ? nil : rest)
        default:
            throw .invalidChoice(verb: "timer", argument: text, expected: "list, add DURATION [LABEL], cancel LABEL|ID or stop")
        }
    }

    /// The words as sent on the wire (a duration in seconds).
    public var argument: String {
        switch self {
        case .list: "list"
        case .stop: "stop"
        case .cancel(let key): "cancel \(key)"
        case .add(let seconds, let label): "add \(seconds)" + (label.map { " \($0)" } ?? "")
        case .alarm(let time, let label): "add \(time)" + (label.map { " \($0)" } ?? "")
        }
    }
}
