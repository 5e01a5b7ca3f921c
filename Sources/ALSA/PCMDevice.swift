import AudioCore

/// Where a PCM comes from: a name in the system ALSA configuration (production), or a name in a
/// private configuration file (tests; opened with `snd_pcm_open_lconf`).
public struct PCMDevice: Sendable, Hashable, CustomStringConvertible {
    /// The PCM name, e.g. `default`, `hw:2,0`, `plughw:CARD=ArrayUAC10,DEV=0`.
    public var name: String
    /// An ALSA configuration file to resolve `name` in instead of the system configuration.
    public var configFile: String?

    public init(name: String, configFile: String? = nil) {
        self.name = name
        self.configFile = configFile
    }

    public var description: String { configFile.map { "\(name) (from \($0))" } ?? name }
}

/// What we ask the device for. The device may round period and buffer sizes; see `PCMParameters`.
public struct PCMConfiguration: Sendable, Hashable {
    /// Frames per second. Default 48 kHz.
    public var sampleRate: Int
    /// Interleaved channels. Default 2.
    public var channels: Int
    /// Requested period length; the nearest the device supports is chosen. Default 10 ms.
    public var periodMicroseconds: Int
    /// Buffer length in periods. Default 4.
    public var periods: Int
    /// Playback starts once this many frames are queued; nil means a full buffer. Ignored for capture
    /// (capture starts on the first read).
    public var startThresholdFrames: Int?

    public init(
        sampleRate: Int = 48_000, channels: Int = 2, periodMicroseconds: Int = 10_000, periods: Int = 4,
        startThresholdFrames: Int? = nil
    ) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.periodMicroseconds = periodMicroseconds
        self.periods = periods
        self.startThresholdFrames = startThresholdFrames
    }
}

/// What the device actually agreed to.
public struct PCMParameters: Sendable, Hashable, CustomStringConvertible {
    public var sampleRate: Int
    public var channels: Int
    public var periodFrames: Int
    public var bufferFrames: Int

    public init(sampleRate: Int, channels: Int, periodFrames: Int, bufferFrames: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.periodFrames = periodFrames
        self.bufferFrames = bufferFrames
    }

    public var format: AudioFormat { AudioFormat(sampleRate: sampleRate, channels: channels) }
    /// Samples (not frames) in one period.
    public var periodSamples: Int { periodFrames * channels }

    public var description: String {
        "\(sampleRate) Hz, \(channels) ch, S16_LE, period \(periodFrames) frames, buffer \(bufferFrames) frames"
    }
}

/// The state of a PCM as alsa-lib reports it (snd_pcm_state).
public enum PCMState: Sendable, Hashable {
    case open, setup, prepared, running, xrun, draining, paused, suspended, disconnected, unknown
}
