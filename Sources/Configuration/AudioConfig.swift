/// `[audio]`: ALSA devices, channel layout, period sizes and realtime scheduling.
public struct AudioConfig: Sendable, Equatable {
    /// ALSA PCM the microphone (array) is captured from.
    public var captureDevice: String = "default"
    /// ALSA PCM all output (voice, media, earcons) is mixed into.
    public var playbackDevice: String = "default"
    /// Capture rate in Hz; resampled to the 16 kHz processing rate if different.
    public var captureRate: Int = 16_000
    /// Channels opened on the capture device (6 for the ReSpeaker USB v2.0 6-channel firmware).
    public var captureChannels: Int = 1
    /// Capture channel used as the microphone signal.
    public var micChannel: Int = 0
    /// Capture channel carrying a hardware loopback of the playback (ReSpeaker 6-ch: 5). `nil`:
    /// the echo reference is the mixed output taken at playback time.
    public var referenceChannel: Int? = nil
    public var playbackRate: Int = 48_000
    public var playbackChannels: Int = 2
    /// ALSA period length.
    public var periodMs: Int = 10
    /// ALSA buffer length in periods.
    public var bufferPeriods: Int = 4
    /// SCHED_FIFO priority of the `rt:*` audio threads; 0 = normal scheduling.
    public var realtimePriority: Int = 70

    public init() {}
}
