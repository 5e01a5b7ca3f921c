/// How the runner drives the engine. Defaults suit the appliance; tests shorten the intervals.
public struct ConversationRunnerConfiguration: Sendable {
    /// The engine's timeouts and session settings.
    public var engine: ConversationConfiguration
    /// How often the loop moves audio (uplink frames, speech into the mixer) and reports voice progress.
    /// Default 20 ms.
    public var tickInterval: Duration
    /// The tick while no conversation runs and no speech or earcon is playing: it only keeps the idle
    /// pre-roll drained (a tap drains it at once). Default 200 ms.
    public var idleTickInterval: Duration
    /// First delay before reopening a Realtime session that failed while connecting; doubles per attempt
    /// (±25 % jitter) up to `reconnectMaximumDelay`. The engine's connect timeout bounds the whole. Default 250 ms.
    public var reconnectInitialDelay: Duration
    /// Default 2 s.
    public var reconnectMaximumDelay: Duration
    /// Log what the user said and what the assistant said (privacy: off by default).
    public var logTranscripts: Bool

    public init(
        engine: ConversationConfiguration = ConversationConfiguration(), tickInterval: Duration = .milliseconds(20),
        idleTickInterval: Duration = .milliseconds(200),
        reconnectInitialDelay: Duration = .milliseconds(250), reconnectMaximumDelay: Duration = .seconds(2),
        logTranscripts: Bool = false
    ) {
        self.engine = engine
        self.tickInterval = tickInterval
        self.idleTickInterval = idleTickInterval
        self.reconnectInitialDelay = reconnectInitialDelay
        self.reconnectMaximumDelay = reconnectMaximumDelay
        self.logTranscripts = logTranscripts
    }

    /// Delay before reconnect attempt `attempt` (1-based), with ±25 % jitter from `unit` in 0..<1.
    func reconnectDelay(attempt: Int, unit: Double) -> Duration {
        let initial = Double(reconnectInitialDelay.wholeMilliseconds)
        let maximum = Double(reconnectMaximumDelay.wholeMilliseconds)
        let base = min(maximum, initial * Double(1 << min(max(attempt - 1, 0), 16)))
        let jittered = base * (0.75 + 0.5 * min(max(unit, 0), 1))
        return .milliseconds(Int64(jittered.rounded()))
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

    public init(
        setLED: @escaping @Sendable (LEDPattern) -> Void = { _ in }, stopMedia: @escaping @Sendable () async -> Void = {},
        turnCompleted: @escaping @Sendable (TurnMetrics) -> Void = { _ in },
        stateChanged: @escaping @Sendable (ConversationState) -> Void = { _ in }
    ) {
        self.setLED = setLED
        self.stopMedia = stopMedia
        self.turnCompleted = turnCompleted
        self.stateChanged = stateChanged
    }
}
