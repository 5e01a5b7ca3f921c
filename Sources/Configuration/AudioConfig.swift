/// `[audio]`: ALSA devices, channel layout, period sizes and realtime scheduling.
public struct AudioConfig: Sendable, Equatable {
    /// ALSA PCM the microphone (array) is captured from.
    public var captureDevice: String
    /// ALSA PCM all output (voice, media, earcons) is mixed into.
    public var playbackDevice: String
    /// Capture rate in Hz; resampled to the 16 kHz processing rate if different.
    public var captureRate: Int
    /// Channels opened on the capture device (6 for the ReSpeaker USB v2.0 6-channel firmware).
    public var captureChannels: Int
    /// Capture channel used as the microphone signal.
    public var micChannel: Int
    /// Capture channel carrying a hardware loopback of the playback (ReSpeaker 6-ch: 5). `nil`:
    /// the echo reference is the mixed output taken at playback time.
    public var referenceChannel: Int?
    public var playbackRate: Int
    public var playbackChannels: Int
    /// ALSA period length.
    public var periodMs: Int
    /// ALSA buffer length in periods.
    public var bufferPeriods: Int
    /// SCHED_FIFO priority of the `rt:*` audio threads; 0 = normal scheduling.
    public var realtimePriority: Int

    public init(
        captureDevice: String = "default",
        playbackDevice: String = "default",
        captureRate: Int = 16_000,
        captureChannels: Int = 1,
        micChannel: Int = 0,
        referenceChannel: Int? = nil,
        playbackRate: Int = 48_000,
        playbackChannels: Int = 2,
        periodMs: Int = 10,
        bufferPeriods: Int = 4,
        realtimePriority: Int = 70
    ) {
        self.captureDevice = captureDevice
        self.playbackDevice = playbackDevice
        self.captureRate = captureRate
        self.captureChannels = captureChannels
        self.micChannel = micChannel
        self.referenceChannel = referenceChannel
        self.playbackRate = playbackRate
        self.playbackChannels = playbackChannels
        self.periodMs = periodMs
        self.bufferPeriods = bufferPeriods
        self.realtimePriority = realtimePriority
    }
}
