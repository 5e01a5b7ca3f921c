import Basics

/// How the runner drives the engine. Defaults suit the appliance; tests shorten the intervals.
public struct ConversationRunnerConfiguration: Sendable {
    /// The engine's timeouts and session settings.
    public var engine: ConversationConfiguration
    /// How often the loop moves audio (uplink frames, speech into the mixer) and reports voice progress.
    /// Default 20 ms.
    public var tickInterval: Duration
    /// The tick while no conversation runs and no speech or earcon is playing: it only keeps the idle
    /// pre-roll drained (a tap drains it at once; the uplink ring holds 10 s), and is cut short when
    /// fast ticks are needed again. Default 1 s.
    public var idleTickInterval: Duration
    /// Delays before reopening a Realtime session that failed while connecting. The engine's connect
    /// timeout bounds the whole. Default `Backoff.realtimeReconnect` (250 ms doubling up to 2 s, ±25 %).
    public var reconnect: Backoff
    /// Log what the user said and what the assistant said (privacy: off by default).
    public var logTranscripts: Bool
    /// The microphone mute as it was left (`MicrophoneMuteStore`): the service starts with it.
    public var startsMuted: Bool

    public init(
        engine: ConversationConfiguration = ConversationConfiguration(), tickInterval: Duration = .milliseconds(20),
        idleTickInterval: Duration = .seconds(1),
        reconnect: Backoff = .realtimeReconnect,
        logTranscripts: Bool = false, startsMuted: Bool = false
    ) {
        self.engine = engine
        self.tickInterval = tickInterval
        self.idleTickInterval = idleTickInterval
        self.reconnect = reconnect
        self.logTranscripts = logTranscripts
        self.startsMuted = startsMuted
    }
}

/// Local feedback and media hooks the composition root wires to the LED, the media player and metrics.
/// Called from the runner's loop; they must return quickly.
public struct ConversationHooks: Sendable {
    public var setLED: @Sendable (LEDPattern) -> Void
    /// Stop media playback (a tap with nothing else to stop).
    public var stopMedia: @Sendable () async -> Void
    /// Per-turn metrics (already logged as one `turn:` line).
    public var turnCompleted: @Sendable (TurnMetrics) -> Void
    /// Every state change, after it happened.
    public var stateChanged: @Sendable (ConversationState) -> Void
    /// The microphone mute changed (keep it for the next start).
    public var microphoneMuteChanged: @Sendable (Bool) -> Void

    public init(
        setLED: @escaping @Sendable (LEDPattern) -> Void = { _ in }, stopMedia: @escaping @Sendable () async -> Void = {},
        turnCompleted: @escaping @Sendable (TurnMetrics) -> Void = { _ in },
        stateChanged: @escaping @Sendable (ConversationState) -> Void = { _ in },
        microphoneMuteChanged: @escaping @Sendable (Bool) -> Void = { _ in }
    ) {
        self.setLED = setLED
        self.stopMedia = stopMedia
        self.turnCompleted = turnCompleted
        self.stateChanged = stateChanged
        self.microphoneMuteChanged = microphoneMuteChanged
    }
}
