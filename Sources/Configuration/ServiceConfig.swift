import AudioCore
public import Logging

/// `[media]`: radio/podcast playback and ducking.
public struct MediaConfig: Sendable, Equatable {
    /// Initial media volume, 0.0...1.0 (changed at runtime by `ctl volume` and `set_volume`).
    public var volume: Double
    /// Media gain while listening/thinking/speaking (negative dB). The ducking defaults are the
    /// `Ducker`'s (one place).
    public var duckDB: Double
    public var duckRampMs: Int
    public var restoreRampMs: Int
    /// Play history, podcast positions and the last volume live here.
    public var stateDir: String
    /// The DJ loop: when a queued item ends, the assistant introduces the next one.
    public var dj: Bool
    /// When the queue runs out, the assistant asks Jarvis for the next pick (continuous radio).
    public var radioMode: Bool
    /// SomaFM's channel list, fetched at most once a day; empty: the built-in station list only.
    public var stationCatalogURL: String
    /// Consecutive failed reconnects of a stream before the appliance gives up and says so.
    public var reconnectAttempts: Int

    public init(
        volume: Double = 0.5,
        duckDB: Double = Double(Ducker.Configuration().depthDecibels),
        duckRampMs: Int = Ducker.Configuration().duckMilliseconds,
        restoreRampMs: Int = Ducker.Configuration().restoreMilliseconds,
        stateDir: String = "/var/lib/jarvis-voice",
        dj: Bool = true,
        radioMode: Bool = false,
        stationCatalogURL: String = "https://api.somafm.com/channels.json",
        reconnectAttempts: Int = 8
    ) {
        self.volume = volume
        self.duckDB = duckDB
        self.duckRampMs = duckRampMs
        self.restoreRampMs = restoreRampMs
        self.stateDir = stateDir
        self.dj = dj
        self.radioMode = radioMode
        self.stationCatalogURL = stationCatalogURL
        self.reconnectAttempts = reconnectAttempts
    }
}

/// `[control]`: the Unix socket `jarvis-voice ctl` talks to.
public struct ControlConfig: Sendable, Equatable {
    public var socket: String

    public init(socket: String = "/run/jarvis-voice/control.sock") {
        self.socket = socket
    }
}

/// `[log]`.
public struct LogConfig: Sendable, Equatable {
    /// trace, debug, info, notice, warning, error or critical.
    public var level: Logger.Level

    public init(level: Logger.Level = .info) {
        self.level = level
    }
}
