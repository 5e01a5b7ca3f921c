import AudioCore
public import Logging

/// `[media]`: radio/podcast playback and ducking.
public struct MediaConfig: Sendable, Equatable {
    /// Initial media volume, 0.0...1.0 (changed at runtime by `ctl volume` and `set_volume`).
    public var volume: Double = 0.5
    /// Media gain while listening/thinking/speaking (negative dB). The ducking defaults are the
    /// `Ducker`'s (one place).
    public var duckDB: Double = Double(Ducker.Configuration().depthDecibels)
    public var duckRampMs: Int = Ducker.Configuration().duckMilliseconds
    public var restoreRampMs: Int = Ducker.Configuration().restoreMilliseconds
    /// Play history, podcast positions and the last volume live here.
    public var stateDir: String = "/var/lib/jarvis-voice"
    /// The DJ loop: when a queued item ends, the assistant introduces the next one.
    public var dj: Bool = true
    /// When the queue runs out, the assistant asks Jarvis for the next pick (continuous radio).
    public var radioMode: Bool = false
    /// SomaFM's channel list, fetched at most once a day; empty: the built-in station list only.
    public var stationCatalogURL: String = "https://api.somafm.com/channels.json"
    /// Consecutive failed reconnects of a stream before the appliance gives up and says so.
    public var reconnectAttempts: Int = 8
    /// LUFS that media and the assistant's voice are leveled to (EBU R128 loudness); 0 turns leveling off.
    public var loudnessTarget: Double = -18
    /// The targets the owner may set: from very quiet to as loud as music is mastered.
    public static let loudnessTargets: ClosedRange<Double> = -36...(-10)

    /// The target, or nil when leveling is off (`loudness_target = 0`).
    public var leveling: Double? { loudnessTarget == 0 ? nil : loudnessTarget }

    public init() {}
}

/// `[control]`: the Unix socket `jarvis-voice ctl` talks to.
public struct ControlConfig: Sendable, Equatable {
    public var socket: String = "/run/jarvis-voice/control.sock"

    public init() {}
}

/// `[timers]`: kitchen timers and alarms.
public struct TimersConfig: Sendable, Equatable {
    /// A timer that nobody stops rings this many seconds (15 minutes), then falls silent.
    public var ringCapSeconds: Int = 900

    public init() {}

    public var ringCap: Duration { .seconds(ringCapSeconds) }
}

/// `[log]`.
public struct LogConfig: Sendable, Equatable {
    /// trace, debug, info, notice, warning, error or critical.
    public var level: Logger.Level = .info

    public init() {}
}
