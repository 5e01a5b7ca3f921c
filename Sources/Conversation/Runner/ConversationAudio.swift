import AudioCore

/// The runner's audio side: assistant speech out, earcons, media ducking, and the microphone uplink.
/// All methods are called from the runner's loop only, one at a time (never concurrently); the real
/// implementation crosses to the audio threads through the `Mixer`'s atomics and SPSC rings.
public protocol ConversationAudio: AnyObject, Sendable {
    /// Queues assistant speech, PCM16 24 kHz mono.
    func enqueueVoice(_ samples: UnsafeBufferPointer<Int16>)
    /// Drops all queued speech now (a pause ends with it); the played counter restarts at 0.
    func flushVoice()
    /// Holds the queued speech where it is (it stops within a few ms; the played counter stands still)...
    func pauseVoice()
    /// ...and plays it on from there.
    func resumeVoice()
    /// Lets the audio side pause the speech by itself the moment its near-end detector hears someone
    /// (armed), or no longer.
    func pauseVoiceOnNearEndSpeech(_ armed: Bool)
    /// 24 kHz samples of speech actually heard since the last flush (written − device delay), at most
    /// what was queued.
    func voicePlayedSamples() -> Int
    func playEarcon(_ earcon: Earcon)
    /// Lowers media for a conversation; idempotent.
    func duckMedia()
    /// Restores media to the user's current volume; idempotent, safe in any state.
    func releaseMedia()
    /// An announcement to every room plays (`ctl say --rooms all`): media ducks under it as under a
    /// conversation, and comes back when neither plays.
    func setAnnouncementPlaying(_ playing: Bool)
    /// How low media goes while ducked in this conversation, a fraction (0...1) of the user volume
    /// (`duck_audio`); nil returns to the configured depth. `releaseMedia()` forgets it.
    func setDuckLevel(_ level: Float?)
    /// The user's media volume, 0...1 (moves the ducked level too while ducked).
    func setMediaVolume(_ volume: Float)
    var mediaGain: MediaGainStatus { get }
    /// The assistant's voice and earcon level, 0...1 as an amplitude factor (0.5 ≈ −6 dB), ramped.
    func setVoiceVolume(_ level: Float)
    /// Moves waiting audio into the mixer as room frees up; called on every runner tick.
    func pump()
    /// Executes an uplink command at `now`; returns `input_audio_buffer.append` frames to send at once.
    func uplink(_ command: UplinkCommand, at now: EngineTime) -> [String]
    /// Drains the capture ring; returns the frames to send now (only while streaming).
    func pullUplink(at now: EngineTime) -> [String]
    /// True once per capture (`uplink(.capture)`), as soon as the captured audio contains speech.
    func takeSpeechDetected() -> Bool
    /// The capture side's near-end speech detector: someone near the device is talking (told apart from
    /// the speaker's echo). Polled every tick; changes become `ConversationEvent.nearEndSpeech`.
    func nearEndSpeechActive() -> Bool
    /// Possible near-end speech, the sooner verdict: someone may be starting to talk (on whenever
    /// `nearEndSpeechActive` is). Polled every tick; changes become `ConversationEvent.possibleNearEndSpeech`.
    func possibleNearEndSpeechActive() -> Bool
    /// Speech or earcons are still queued or playing (the loop keeps ticking fast until they are out).
    var isOutputPending: Bool { get }
}

extension ConversationAudio {
    /// Without possible near-end speech, near-end speech itself.
    public func possibleNearEndSpeechActive() -> Bool { nearEndSpeechActive() }
}

public struct MediaGainStatus: Sendable, Equatable {
    public var ducked: Bool
    public var volume: Float

    public init(ducked: Bool, volume: Float) {
        self.ducked = ducked
        self.volume = volume
    }
}
