/// The `status` answer (ARCHITECTURE §9). Encodes exactly
/// `{"state", "realtime_connected", "jarvis_session_id", "voice_volume", "muted", "timers", "media": {"state", "title", "url", "volume", "ducked"}}`
/// and the keys added to it: `cost_usd` (`{"since_start", "today"}`), `barge_ins`, `echo_turns_ignored`,
/// `voice_pauses_resumed`, `malformed_events`, `unknown_events`, `audio` (`AudioStatus`) and `snapcast`
/// (`SnapcastStatus`), with absent values as
/// JSON `null` (never omitted).
public struct ServiceStatus: Sendable, Equatable, Codable {
    /// The conversation engine's state in snake_case: `idle`, `connecting`, `listening`,
    /// `user_speaking`, `processing`, `filler_speaking`, `waiting_for_jarvis`, `ai_speaking`, `error`.
    public var state: String
    public var realtimeConnected: Bool
    public var jarvisSessionID: String?
    /// The assistant's voice and earcon level, 0.0...1.0 (`ctl voice-volume`).
    public var voiceVolume: Double
    /// The microphone privacy mute (`ctl mute on|off`, a double tap).
    public var muted: Bool
    /// Timers and alarms running or ringing, soonest first.
    public var timers: [TimerStatus]
    public var media: MediaStatus
    /// Estimated Realtime API spending.
    public var cost: CostStatus
    /// Since start: times the user's speech stopped the assistant, and turns the server's VAD heard
    /// while the assistant spoke that were dropped as its echo.
    public var bargeIns: Int
    public var echoTurnsIgnored: Int
    /// Since start: times near-end speech paused the assistant but was too short to stop it (the answer
    /// went on).
    public var voicePausesResumed: Int
    /// Since start: Realtime server frames that were not valid events, and events of unknown types.
    public var malformedEvents: Int
    public var unknownEvents: Int
    /// Nil when the service runs no audio pipeline.
    public var audio: AudioStatus?
    /// Nil when `[snapcast]` is off.
    public var snapcast: SnapcastStatus?

    public init(
        state: String, realtimeConnected: Bool, jarvisSessionID: String?, voiceVolume: Double = 1, muted: Bool = false,
        timers: [TimerStatus] = [], media: MediaStatus,
        cost: CostStatus = CostStatus(), bargeIns: Int = 0, echoTurnsIgnored: Int = 0, voicePausesResumed: Int = 0, malformedEvents: Int = 0,
        unknownEvents: Int = 0, audio: AudioStatus? = nil, snapcast: SnapcastStatus? = nil
    ) {
        self.state = state
        self.realtimeConnected = realtimeConnected
        self.jarvisSessionID = jarvisSessionID
        self.voiceVolume = voiceVolume
        self.muted = muted
        self.timers = timers
        self.media = media
        self.cost = cost
        self.bargeIns = bargeIns
        self.echoTurnsIgnored = echoTurnsIgnored
        self.voicePausesResumed = voicePausesResumed
        self.malformedEvents = malformedEvents
        self.unknownEvents = unknownEvents
        self.audio = audio
        self.snapcast = snapcast
    }

    enum CodingKeys: String, CodingKey {
        case state
        case realtimeConnected = "realtime_connected"
        case jarvisSessionID = "jarvis_session_id"
        case voiceVolume = "voice_volume"
        case muted, timers
        case media
        case cost = "cost_usd"
        case bargeIns = "barge_ins"
        case echoTurnsIgnored = "echo_turns_ignored"
        case voicePausesResumed = "voice_pauses_resumed"
        case malformedEvents = "malformed_events"
        case unknownEvents = "unknown_events"
        case audio
        case snapcast
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(state, forKey: .state)
        try c.encode(realtimeConnected, forKey: .realtimeConnected)
        try c.encodeOrNull(jarvisSessionID, forKey: .jarvisSessionID)
        try c.encode(voiceVolume, forKey: .voiceVolume)
        try c.encode(muted, forKey: .muted)
        try c.encode(timers, forKey: .timers)
        try c.encode(media, forKey: .media)
        try c.encode(cost, forKey: .cost)
        try c.encode(bargeIns, forKey: .bargeIns)
        try c.encode(echoTurnsIgnored, forKey: .echoTurnsIgnored)
        try c.encode(voicePausesResumed, forKey: .voicePausesResumed)
        try c.encode(malformedEvents, forKey: .malformedEvents)
        try c.encode(unknownEvents, forKey: .unknownEvents)
        if let audio { try c.encode(audio, forKey: .audio) } else { try c.encodeNil(forKey: .audio) }
        if let snapcast { try c.encode(snapcast, forKey: .snapcast) } else { try c.encodeNil(forKey: .snapcast) }
    }
}

/// One entry of `status.timers`.
public struct TimerStatus: Sendable, Equatable, Codable {
    public enum State: String, Sendable, Equatable, Codable { case running, ringing }

    public var id: String
    public var label: String?
    public var state: State
    /// Whole seconds until it rings; 0 while ringing.
    public var dueInSeconds: Int

    public init(id: String, label: String?, state: State, dueInSeconds: Int) {
        self.id = id
        self.label = label
        self.state = state
        self.dueInSeconds = dueInSeconds
    }

    enum CodingKeys: String, CodingKey {
        case id, label, state
        case dueInSeconds = "due_in_s"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encodeOrNull(label, forKey: .label)
        try c.encode(state, forKey: .state)
        try c.encode(dueInSeconds, forKey: .dueInSeconds)
    }
}

/// The `cost_usd` object of `status`: estimated USD spent on the Realtime API since the service started,
/// and since the owner's local midnight, rounded to a millionth of a dollar.
public struct CostStatus: Sendable, Equatable, Codable {
    public var sinceStart: Double
    public var today: Double

    public init(sinceStart: Double = 0, today: Double = 0) {
        self.sinceStart = (sinceStart * 1e6).rounded() / 1e6
        self.today = (today * 1e6).rounded() / 1e6
    }

    enum CodingKeys: String, CodingKey {
        case sinceStart = "since_start"
        case today
    }
}

/// The `media` object of `status`.
public struct MediaStatus: Sendable, Equatable, Codable {
    public enum State: String, Sendable, Equatable, Codable {
        /// `buffering`: an item is current but none of its audio is heard yet (connecting, reconnecting).
        case stopped, playing, paused, buffering
    }

    public var state: State
    public var title: String?
    public var url: String?
    /// The user's volume, 0.0...1.0 (not the ducked gain).
    public var volume: Double
    public var ducked: Bool

    public init(state: State = .stopped, title: String? = nil, url: String? = nil, volume: Double, ducked: Bool = false) {
        self.state = state
        self.title = title
        self.url = url
        self.volume = volume
        self.ducked = ducked
    }

    enum CodingKeys: String, CodingKey {
        case state, title, url, volume, ducked
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(state, forKey: .state)
        try c.encodeOrNull(title, forKey: .title)
        try c.encodeOrNull(url, forKey: .url)
        try c.encode(volume, forKey: .volume)
        try c.encode(ducked, forKey: .ducked)
    }
}

extension KeyedEncodingContainer {
    /// Synthesized Codable omits nil optionals; the contract wants an explicit `null`.
    mutating func encodeOrNull(_ value: String?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
}
