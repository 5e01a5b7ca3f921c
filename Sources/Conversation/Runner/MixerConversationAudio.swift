import AudioCore
import AudioEngine

/// `ConversationAudio` over AudioCore's `Mixer`: speech on the voice input (24 kHz mono, resampled once
/// to the device rate), earcons on the earcon input, ducking of the media input through a `Ducker`, and
/// the uplink drained from the capture chain's 24 kHz ring. Works with or without a device: whoever
/// calls `mixer.render(into:)` (the playback loop, or a test) is the listener.
///
/// Used from the runner's loop only (see `ConversationAudio`); hence `@unchecked Sendable`.
public final class MixerConversationAudio: ConversationAudio, @unchecked Sendable {
    public struct Configuration: Sendable {
        /// Format of the PCM the earcon provider returns. Default 24 kHz mono.
        public var earconFormat: AudioFormat
        public var uplink: UplinkConfiguration
        public var ducker: Ducker.Configuration
        /// speexdsp resampler quality for voice and earcons (0...10). Default 5.
        public var resamplerQuality: Int
        /// The resampler tail is pushed out once the queued speech falls below this. Default 60 ms.
        public var lowWaterMilliseconds: Int
        /// The voice is leveled to this target, as the media is (`[media] loudness_target`); nil: the
        /// voice plays as the model sends it.
        public var loudnessTarget: LoudnessTarget?

        public init(
            earconFormat: AudioFormat = .realtime, uplink: UplinkConfiguration = UplinkConfiguration(),
            ducker: Ducker.Configuration = Ducker.Configuration(), resamplerQuality: Int = 5,
            lowWaterMilliseconds: Int = 60, loudnessTarget: LoudnessTarget? = nil
        ) {
            self.earconFormat = earconFormat
            self.uplink = uplink
            self.ducker = ducker
            self.resamplerQuality = resamplerQuality
            self.lowWaterMilliseconds = lowWaterMilliseconds
            self.loudnessTarget = loudnessTarget
        }
    }

    public let mixer: Mixer
    private let voice: VoiceChannelFeeder
    private let earconFeeder: VoiceChannelFeeder
    private let earcons: @Sendable (Earcon) -> [Int16]?
    private let deviceDelayFrames: @Sendable () -> Int
    private let nearEndSpeech: @Sendable () -> Bool
    private let possibleNearEndSpeech: @Sendable () -> Bool
    private let nearEndPause: @Sendable (Bool) -> Void
    private let uplinkActivity: @Sendable (Bool) -> Void
    private let captureRing: SPSCRing<Int16>
    private var captureScratch: [Int16]
    private var uplinkBuffer: UplinkBuffer
    private var ducker: Ducker
    /// Media is ducked while either holds: a conversation runs, or the group's announcement plays.
    private var conversationDucks = false
    private var announcementDucks = false
    private let loudnessTarget: LoudnessTarget?
    /// One follower for every answer and announcement of the service's life: the model's voice keeps its
    /// loudness from answer to answer, so what was learnt holds (gaps between answers hold the gain).
    private var voiceLeveler: LoudnessLeveler
    private var voiceScratch: [Int16] = []

    /// - Parameters:
    ///   - captureRing: 24 kHz PCM16 mono from the capture chain; this object is its only consumer.
    ///   - earcons: PCM (in `configuration.earconFormat`) for each cue; nil plays nothing.
    ///   - deviceDelayFrames: the playback device's delay (`snd_pcm_delay`, e.g. `PlaybackLoop.status.delayFrames`).
    ///   - nearEndSpeech: the capture chain's near-end speech verdict (`CaptureStatistics.nearEndSpeech`).
    ///   - possibleNearEndSpeech: possible near-end speech, its sooner verdict (`CaptureStatistics.possibleNearEndSpeech`); nil:
    ///     the verdict itself.
    ///   - nearEndPause: arms the playback side's own pause at that verdict (`NearEndPauseReflex.isArmed`).
    ///   - uplinkActivity: told when a conversation starts (true) and stops (false) capturing, so the capture
    ///     side can idle in between (`AudioPipeline.uplinkActive`).
    public init(
        mixer: Mixer, captureRing: SPSCRing<Int16>, configuration: Configuration = Configuration(),
        earcons: @escaping @Sendable (Earcon) -> [Int16]? = { _ in nil },
        deviceDelayFrames: @escaping @Sendable () -> Int = { 0 },
        nearEndSpeech: @escaping @Sendable () -> Bool = { false },
        possibleNearEndSpeech: (@Sendable () -> Bool)? = nil,
        nearEndPause: @escaping @Sendable (Bool) -> Void = { _ in },
        uplinkActivity: @escaping @Sendable (Bool) -> Void = { _ in }
    ) throws {
        self.mixer = mixer
        let voiceWriter = try PlaybackChannelWriter(
            mixer: mixer, channel: .voice, sourceFormat: .realtime, quality: configuration.resamplerQuality)
        let earconWriter = try PlaybackChannelWriter(
            mixer: mixer, channel: .earcon, sourceFormat: configuration.earconFormat, quality: configuration.resamplerQuality)
        voice = VoiceChannelFeeder(writer: voiceWriter, lowWaterMilliseconds: configuration.lowWaterMilliseconds)
        earconFeeder = VoiceChannelFeeder(writer: earconWriter, lowWaterMilliseconds: configuration.lowWaterMilliseconds)
        self.earcons = earcons
        self.deviceDelayFrames = deviceDelayFrames
        self.nearEndSpeech = nearEndSpeech
        self.possibleNearEndSpeech = possibleNearEndSpeech ?? nearEndSpeech
        self.nearEndPause = nearEndPause
        self.uplinkActivity = uplinkActivity
        self.captureRing = captureRing
        captureScratch = [Int16](repeating: 0, count: max(1, AudioFormat.realtime.frames(milliseconds: 100)))
        uplinkBuffer = UplinkBuffer(configuration: configuration.uplink)
        ducker = Ducker(configuration: configuration.ducker)
        loudnessTarget = configuration.loudnessTarget
        voiceLeveler = LoudnessLeveler(
            format: .realtime, dualMono: mixer.format.channels > 1 && AudioFormat.realtime.channels == 1,
            configuration: LoudnessLeveler.Configuration(target: configuration.loudnessTarget?.lufs))
    }

    /// With a fixed earcon table (PCM in `configuration.earconFormat`).
    public convenience init(
        mixer: Mixer, captureRing: SPSCRing<Int16>, configuration: Configuration = Configuration(),
        earconTable: [Earcon: [Int16]], deviceDelayFrames: @escaping @Sendable () -> Int = { 0 }
    ) throws {
        try self.init(
            mixer: mixer, captureRing: captureRing, configuration: configuration,
            earcons: { earconTable[$0] }, deviceDelayFrames: deviceDelayFrames)
    }

    // MARK: speech and earcons

    public func enqueueVoice(_ samples: UnsafeBufferPointer<Int16>) {
        guard let loudnessTarget else { return voice.enqueue(samples) }
        if voiceScratch.count < samples.count { voiceScratch = Array(repeating: 0, count: samples.count) }
        voiceScratch.withUnsafeMutableBufferPointer { buffer in
            let leveled = UnsafeMutableBufferPointer(rebasing: buffer[0..<samples.count])
            _ = leveled.initialize(from: samples)
            voiceLeveler.configuration.target = loudnessTarget.lufs
            voiceLeveler.process(leveled)
            voice.enqueue(UnsafeBufferPointer(leveled))
        }
    }

    /// The voice leveler's gain, dB.
    public var voiceLoudnessGainDB: Double { voiceLeveler.gainDB }

    public func flushVoice() {
        voice.flush()
        mixer.setPaused(false, for: .voice)
    }

    public func pauseVoice() { mixer.setPaused(true, for: .voice) }

    public func resumeVoice() { mixer.setPaused(false, for: .voice) }

    public func pauseVoiceOnNearEndSpeech(_ armed: Bool) { nearEndPause(armed) }

    public func voicePlayedSamples() -> Int { voice.played(deviceDelayFrames: deviceDelayFrames()) }

    public func playEarcon(_ earcon: Earcon) {
        guard let pcm = earcons(earcon), !pcm.isEmpty else { return }
        pcm.withUnsafeBufferPointer { earconFeeder.enqueue($0) }
    }

    public func pump() {
        voice.pump()
        earconFeeder.pump()
    }

    public var isOutputPending: Bool {
        voice.hasPendingAudio || earconFeeder.hasPendingAudio || mixer.framesQueued(.voice) > 0 || mixer.framesQueued(.earcon) > 0
    }

    // MARK: media gain

    public func duckMedia() {
        conversationDucks = true
        if let change = ducker.duck() { applyToMedia(change) }
    }

    public func releaseMedia() {
        conversationDucks = false
        guard !announcementDucks else { return }
        if let change = ducker.release() { applyToMedia(change) }
    }

    public func setAnnouncementPlaying(_ playing: Bool) {
        announcementDucks = playing
        if playing {
            if let change = ducker.duck() { applyToMedia(change) }
        } else if !conversationDucks, let change = ducker.release() {
            applyToMedia(change)
        }
    }

    public func setDuckLevel(_ level: Float?) {
        if let change = ducker.setDuckLevel(level) { applyToMedia(change) }
    }

    public func setMediaVolume(_ volume: Float) {
        if let change = ducker.setVolume(volume) { applyToMedia(change) }
    }

    /// Local radio and the rooms' synchronized stream are one kind of audio: one volume, ducked together.
    private func applyToMedia(_ change: GainChange) {
        mixer.apply(change, to: .media)
        mixer.apply(change, to: .rooms)
    }

    public func setVoiceVolume(_ level: Float) {
        let gain = min(max(level, 0), 1)
        let frames = mixer.format.frames(milliseconds: 50)
        mixer.setGain(gain, frames: frames, shape: .linear, for: .voice)
        mixer.setGain(gain, frames: frames, shape: .linear, for: .earcon)
        mixer.setGain(gain, frames: frames, shape: .linear, for: .announcement)
    }

    public var mediaGain: MediaGainStatus { MediaGainStatus(ducked: ducker.isDucked, volume: ducker.volume) }

    // MARK: uplink

    public func uplink(_ command: UplinkCommand, at now: EngineTime) -> [String] {
        drainCapture()
        switch command {
        case .capture(let since):
            uplinkActivity(true)
            uplinkBuffer.capture(since: since, now: now)
            return []
        case .stream: return uplinkBuffer.stream()
        case .stop:
            uplinkActivity(false)
            return uplinkBuffer.stop()
        }
    }

    public func nearEndSpeechActive() -> Bool { nearEndSpeech() }
    public func possibleNearEndSpeechActive() -> Bool { possibleNearEndSpeech() }

    public func pullUplink(at now: EngineTime) -> [String] {
        drainCapture()
        return uplinkBuffer.readyFrames()
    }

    public func takeSpeechDetected() -> Bool {
        drainCapture()
        return uplinkBuffer.takeSpeechDetected()
    }

    /// Mic samples the uplink dropped because the pre-roll limit was reached.
    public var uplinkDroppedSamples: Int { uplinkBuffer.droppedSamples }

    private func drainCapture() {
        while captureRing.availableToRead > 0 {
            let n = captureScratch.withUnsafeMutableBufferPointer { captureRing.read(into: $0) }
            guard n > 0 else { break }
            captureScratch.withUnsafeBufferPointer { uplinkBuffer.append(UnsafeBufferPointer(rebasing: $0[0..<n])) }
        }
    }
}
