/// One request of the control protocol: exactly the verbs of `jarvis-voice ctl` (ARCHITECTURE §9).
public enum ControlCommand: Sendable, Equatable {
    /// Like a short button press: start a conversation, or stop whatever speaks/plays.
    case tap
    /// Push-to-talk pressed (the mic streams until `release`).
    case press
    case release
    /// A typed request; the answer is spoken.
    case ask(String)
    case status
    case play(url: String)
    case station(name: String)
    case podcast(feedURL: String)
    case pause
    case resume
    case stop
    case skip
    /// Media volume, validated to 0.0...1.0.
    case volume(Double)
    /// Forget the Jarvis session (start fresh).
    case reset
    /// Speak TEXT as an announcement through the assistant's voice; answered once it has been spoken.
    case say(String)
    /// `say --rooms all TEXT`: the same on every box of the Snapcast group, in sync.
    case sayInEveryRoom(String)
    /// The assistant's voice and earcons, validated to 0.0...1.0 (`volume` stays the media volume).
    case voiceVolume(Double)
    /// The microphone privacy mute: `mute on` / `mute off`.
    case mute(Bool)
    /// `timer list`, `timer add DURATION [LABEL]`, `timer cancel LABEL|ID`, `timer stop`.
    case timer(TimerRequest)
    /// Makes this box's Snapcast group play the snapserver's stream NAME.
    case roomStream(String)

    /// Every verb, in the contract's order.
    public static let verbs = [
        "tap", "press", "release", "ask", "status", "play", "station", "podcast",
        "pause", "resume", "stop", "skip", "volume", "reset", "say", "voice-volume", "mute", "timer",
        "room-stream"
    ]

    /// Verbs that take exactly one argument, with the name shown in usage messages.
    public static let argumentNames = [
        "ask": "TEXT", "play": "URL", "station": "NAME", "podcast": "FEED_URL", "volume": "LEVEL",
        "say": "TEXT", "voice-volume": "LEVEL", "mute": "on|off",
        "timer": "list|add DURATION [LABEL]|cancel LABEL|stop", "room-stream": "NAME"
    ]

    /// Verbs whose argument is the rest of the command line (several words).
    public static let textVerbs: Set<String> = ["ask", "say", "timer"]

    /// Builds a command from its verb and optional argument, as typed after `ctl` or sent on the wire.
    public init(verb: String, argument: String?) throws(ControlCommandError) {
        let argument = argument.flatMap { $0.isEmpty ? nil : $0 }
        guard Self.verbs.contains(verb) else { throw .unknownVerb(verb) }
        if let name = Self.argumentNames[verb] {
            guard let argument else { throw .missingArgument(verb: verb, name: name) }
            switch verb {
            case "ask": self = .ask(argument)
            case "play": self = .play(url: argument)
            case "station": self = .station(name: argument)
            case "podcast": self = .podcast(feedURL: argument)
            case "say": self = try Self.announcement(argument)
            case "voice-volume": self = .voiceVolume(try Self.level(argument))
            case "timer": self = .timer(try TimerRequest(argument))
            case "room-stream": self = .roomStream(argument)
            case "mute":
                switch argument {
                case "on": self = .mute(true)
                case "off": self = .mute(false)
                default: throw .invalidChoice(verb: verb, argument: argument, expected: "on or off")
                }
            default: self = .volume(try Self.level(argument))
            }
            return
        }
        if let argument { throw .unexpectedArgument(verb: verb, argument: argument) }
        switch verb {
        case "tap": self = .tap
        case "press": self = .press
        case "release": self = .release
        case "status": self = .status
        case "pause": self = .pause
        case "resume": self = .resume
        case "stop": self = .stop
        case "skip": self = .skip
        default: self = .reset
        }
    }

    /// `TEXT` or `--rooms all TEXT`.
    static func announcement(_ argument: String) throws(ControlCommandError) -> ControlCommand {
        guard argument.hasPrefix("--rooms") else { return .say(argument) }
        let words = argument.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard words.count >= 2, words[0] == "--rooms", words[1] == "all" else {
            throw .invalidChoice(verb: "say --rooms", argument: words.count > 1 ? String(words[1]) : "", expected: "all")
        }
        guard words.count == 3 else { throw .missingArgument(verb: "say --rooms all", name: "TEXT") }
        return .sayInEveryRoom(String(words[2]))
    }

    /// A volume level: a decimal number from 0.0 to 1.0.
    static func level(_ text: String) throws(ControlCommandError) -> Double {
        guard let value = Double(text), value.isFinite, (0.0...1.0).contains(value) else {
            throw .invalidVolume(text)
        }
        return value
    }

    public var verb: String {
        switch self {
        case .tap: "tap"
        case .press: "press"
        case .release: "release"
        case .ask: "ask"
        case .status: "status"
        case .play: "play"
        case .station: "station"
        case .podcast: "podcast"
        case .pause: "pause"
        case .resume: "resume"
        case .stop: "stop"
        case .skip: "skip"
        case .volume: "volume"
        case .reset: "reset"
        case .say, .sayInEveryRoom: "say"
        case .voiceVolume: "voice-volume"
        case .mute: "mute"
        case .timer: "timer"
        case .roomStream: "room-stream"
        }
    }

    /// The argument as sent on the wire (volume in its shortest decimal form), nil for bare verbs.
    public var argument: String? {
        switch self {
        case .ask(let text): text
        case .play(let url): url
        case .station(let name): name
        case .podcast(let feedURL): feedURL
        case .volume(let level): "\(level)"
        case .say(let text): text
        case .sayInEveryRoom(let text): "--rooms all \(text)"
        case .voiceVolume(let level): "\(level)"
        case .mute(let muted): muted ? "on" : "off"
        case .timer(let request): request.argument
        case .roomStream(let name): name
        case .tap, .press, .release, .status, .pause, .resume, .stop, .skip, .reset: nil
        }
    }

    /// Verbs the media player answers.
    public var isMedia: Bool {
        switch self {
        case .play, .station, .podcast, .pause, .resume, .stop, .skip, .volume: true
        case .tap, .press, .release, .ask, .status, .reset, .say, .sayInEveryRoom, .voiceVolume, .mute, .timer, .roomStream: false
        }
    }

    /// How long the service may take to answer beyond the server's handler timeout: `say` answers once
    /// the announcement has been spoken, possibly after a running conversation (at most `sayMaxAge`,
    /// 5 min, plus the speech); every other command answers at once (zero: the handler timeout applies).
    public var answerTime: Duration {
        switch self {
        case .say, .sayInEveryRoom: .seconds(330)
        default: .zero
        }
    }
}

/// A request that is not one of the contract's commands. The messages fit after "jarvis-voice ctl: ".
public enum ControlCommandError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownVerb(String)
    case missingArgument(verb: String, name: String)
    case unexpectedArgument(verb: String, argument: String)
    case invalidVolume(String)
    case invalidChoice(verb: String, argument: String, expected: String)
    case invalidDuration(String)

    public var description: String {
        switch self {
        case .unknownVerb(let verb):
            "unknown command \"\(verb)\"; expected one of: \(ControlCommand.verbs.joined(separator: ", "))"
        case .missingArgument(let verb, let name):
            "\(verb) needs an argument: \(verb) \(name)"
        case .unexpectedArgument(let verb, _):
            "\(verb) takes no argument"
        case .invalidVolume(let text):
            "volume must be a number from 0.0 to 1.0, got \"\(text)\""
        case .invalidDuration(let text):
            "timer add needs a duration like 90s, 10m or 1h30m (up to 24h), got \"\(text)\""
        case .invalidChoice(let verb, let argument, let expected):
            "\(verb) takes \(expected), got \"\(argument)\""
        }
    }
}
