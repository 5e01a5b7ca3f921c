/// The media ducking policy: media is lowered by `depthDecibels` while a conversation runs (from the
/// moment listening starts, through thinking and speaking) and restored to the *current* user volume
/// when it ends.
///
/// A pure value: each method returns the `GainChange` to hand to `Mixer.apply(_:to: .media)`, or nil
/// when nothing changes. Ducking is a state, not a counter: ducking twice equals ducking once, one
/// `release()` always restores (errors and timeouts call it unconditionally), and a volume change while
/// ducked moves the ducked level and is what the release restores to.
public struct Ducker: Sendable, Hashable {
    public struct Configuration: Sendable, Hashable {
        /// How far media goes down while ducked. Default -20 dB: speech stays intelligible over it.
        public var depthDecibels: Float
        /// Ramp down when a conversation starts. Default 100 ms: quick, but not a click.
        public var duckMilliseconds: Int
        /// Ramp back up when it ends. Default 300 ms: a gentle return.
        public var restoreMilliseconds: Int
        /// Ramp for user volume changes. Default 50 ms.
        public var volumeMilliseconds: Int

        public init(
            depthDecibels: Float = -20, duckMilliseconds: Int = 100,
            restoreMilliseconds: Int = 300, volumeMilliseconds: Int = 50
        ) {
            self.depthDecibels = min(0, depthDecibels)
            self.duckMilliseconds = max(0, duckMilliseconds)
            self.restoreMilliseconds = max(0, restoreMilliseconds)
            self.volumeMilliseconds = max(0, volumeMilliseconds)
        }
    }

    /// What the conversation is doing, as far as ducking cares.
    public enum Activity: Sendable, Hashable {
        case idle, listening, thinking, speaking
    }

    public let configuration: Configuration
    /// The user's media volume, 0...1.
    public private(set) var volume: Float
    public private(set) var isDucked = false
    /// A per-conversation override of how low media goes while ducked, as a fraction of the user volume
    /// (the model's `duck_audio(level)`); nil uses `depthDecibels`. Cleared by `release()`.
    public private(set) var duckLevel: Float?

    public init(configuration: Configuration = Configuration(), volume: Float = 1) {
        self.configuration = configuration
        self.volume = Self.clampVolume(volume)
    }

    /// The media gain the mixer should be at (or heading to) now.
    public var gain: Float {
        isDucked ? volume * (duckLevel ?? Decibels.gain(configuration.depthDecibels)) : volume
    }

    /// The full current target, for resynchronizing a mixer (e.g. after it was recreated).
    public var target: GainChange { GainChange(gain: gain, milliseconds: 0) }

    public mutating func duck() -> GainChange? {
        guard !isDucked else { return nil }
        isDucked = true
        return GainChange(gain: gain, milliseconds: configuration.duckMilliseconds)
    }

    /// Restores the current volume and forgets a `setDuckLevel` override; safe to call in any state.
    public mutating func release() -> GainChange? {
        duckLevel = nil
        guard isDucked else { return nil }
        isDucked = false
        return GainChange(gain: gain, milliseconds: configuration.restoreMilliseconds)
    }

    /// Sets how low media goes while ducked, as a fraction (0...1) of the user volume, for the current
    /// conversation; nil returns to the configured depth. Absolute, never compounding: the same level twice
    /// is one change. Returns the ramp when ducked now (otherwise the level applies at the next `duck()`).
    public mutating func setDuckLevel(_ level: Float?) -> GainChange? {
        let clamped = level.map(Self.clampVolume)
        guard clamped != duckLevel else { return nil }
        duckLevel = clamped
        return isDucked ? GainChange(gain: gain, milliseconds: configuration.duckMilliseconds) : nil
    }

    public mutating func setVolume(_ newVolume: Float) -> GainChange? {
        let v = Self.clampVolume(newVolume)
        guard v != volume else { return nil }
        volume = v
        return GainChange(gain: gain, milliseconds: configuration.volumeMilliseconds)
    }

    /// The policy: any conversation activity ducks, `idle` releases.
    public mutating func update(_ activity: Activity) -> GainChange? {
        activity == .idle ? release() : duck()
    }

    static func clampVolume(_ v: Float) -> Float { v.isNaN ? 0 : min(max(v, 0), 1) }
}
