/// The `audio` object of `status`: the sound devices and the echo canceller, for an owner asking why
/// the assistant did not hear them or stopped itself.
public struct AudioStatus: Sendable, Equatable, Codable {
    public var captureRunning: Bool
    public var playbackRunning: Bool
    /// Since start.
    public var captureXruns: Int
    public var playbackXruns: Int
    /// The echo canceller's echo reduction, in dB, as of the last time the speaker played (held while it
    /// is silent; 0 before anything has played).
    public var echoReductionDB: Double
    /// The echo's lag behind the reference the capture chain is given (after the devices' reported
    /// delays), in milliseconds, from the chain's last confident estimate.
    public var referenceLagMilliseconds: Double
    /// The near-end detector hears someone talking near the device (told apart from the echo).
    public var nearEndSpeech: Bool
    /// Since start: how often the speaker's queue was taken back for a paused voice (it fell silent a
    /// period after the pause instead of after the whole device buffer).
    public var playbackTakeBacks: Int
    /// Since start: of `playbackXruns`, those in which the speaker ran dry while its queue was being taken
    /// back (the playback thread ran later than the period left playing).
    public var playbackTakeBackUnderruns: Int

    public init(
        captureRunning: Bool, playbackRunning: Bool, captureXruns: Int, playbackXruns: Int,
        echoReductionDB: Double, referenceLagMilliseconds: Double, nearEndSpeech: Bool, playbackTakeBacks: Int = 0,
        playbackTakeBackUnderruns: Int = 0
    ) {
        self.captureRunning = captureRunning
        self.playbackRunning = playbackRunning
        self.captureXruns = captureXruns
        self.playbackXruns = playbackXruns
        self.echoReductionDB = echoReductionDB
        self.referenceLagMilliseconds = referenceLagMilliseconds
        self.nearEndSpeech = nearEndSpeech
        self.playbackTakeBacks = playbackTakeBacks
        self.playbackTakeBackUnderruns = playbackTakeBackUnderruns
    }

    enum CodingKeys: String, CodingKey {
        case captureRunning = "capture_running"
        case playbackRunning = "playback_running"
        case captureXruns = "capture_xruns"
        case playbackXruns = "playback_xruns"
        case echoReductionDB = "echo_reduction_db"
        case referenceLagMilliseconds = "reference_lag_ms"
        case nearEndSpeech = "near_end_speech"
        case playbackTakeBacks = "playback_take_backs"
        case playbackTakeBackUnderruns = "playback_take_back_underruns"
    }
}
