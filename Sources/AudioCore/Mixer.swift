import Synchronization

/// Mixes the voice, media and earcon inputs into the device format on the playback thread.
///
/// Producers (one thread per input) push PCM that is already at the device rate and channel count with
/// `write(_:to:)`; each input is a preallocated `SPSCRing`. The playback thread calls `render(into:)`
/// once per period: every input contributes what it has queued (a dry input contributes silence for the
/// rest of the period, without affecting the others), scaled by its own `GainRamp`, summed in 32 bits
/// and saturated once to Int16.
///
/// Control from any thread is lock-free: `setGain` stores one packed atomic word (target, ramp length,
/// shape) that the render thread picks up at the start of the next period and then ramps
/// sample-accurately; `flush` bumps an atomic counter. Re-sending the current target is a no-op, so
/// commands are idempotent.
///
/// `render(into:)` never allocates, locks, logs or blocks; all buffers are allocated in `init`.
public final class Mixer: @unchecked Sendable {
    public struct Configuration: Sendable, Hashable {
        /// The playback device format every input must already be in.
        public var format: AudioFormat
        /// Queue length per input, in milliseconds. Voice arrives faster than real time in bursts, so
        /// its producer keeps its own backlog and uses `availableFrames(toWrite:)` as back-pressure.
        public var voiceQueueMilliseconds: Int
        public var mediaQueueMilliseconds: Int
        public var earconQueueMilliseconds: Int
        /// On `flush`, this much of the already-queued audio is faded out instead of cut (a hard cut
        /// mid-waveform clicks); the rest is dropped at once. 0 cuts.
        public var flushFadeMilliseconds: Int
        /// Work is done in chunks of at most this many frames (any `render` size is accepted).
        public var chunkFrames: Int
        /// How much of what it rendered last the mixer remembers, so that a pause of the voice can take
        /// back what the device has queued and not played yet (`takeBack(frames:into:)`). At least the
        /// playback device's buffer; 0: no take-back.
        public var takeBackMilliseconds: Int

        public init(
            format: AudioFormat = AudioFormat(sampleRate: 48_000, channels: 2),
            voiceQueueMilliseconds: Int = 2_000,
            mediaQueueMilliseconds: Int = 1_000,
            earconQueueMilliseconds: Int = 2_000,
            flushFadeMilliseconds: Int = 5,
            chunkFrames: Int = 1_024,
            takeBackMilliseconds: Int = 100
        ) {
            self.format = format
            self.voiceQueueMilliseconds = voiceQueueMilliseconds
            self.mediaQueueMilliseconds = mediaQueueMilliseconds
            self.earconQueueMilliseconds = earconQueueMilliseconds
            self.flushFadeMilliseconds = flushFadeMilliseconds
            self.chunkFrames = chunkFrames
            self.takeBackMilliseconds = takeBackMilliseconds
        }
    }

    public let configuration: Configuration
    public var format: AudioFormat { configuration.format }

    let controls: [MixerChannelControl]
    let states: UnsafeMutablePointer<MixerChannelState>
    private let scratch: UnsafeMutableBufferPointer<Int16>
    private let accumulator: UnsafeMutableBufferPointer<Int32>
    /// One fade-out tail per input, `flushFadeFrames` frames each.
    private let fadeBuffers: UnsafeMutableBufferPointer<Int16>
    let flushFadeFrames: Int
    let channels: Int
    /// The voice's last rendered frames and what a take-back put back in its queue (render thread).
    let voiceHistory: VoiceRenderHistory
    let playbackStamps = MixerPlaybackStamps(channels: MixerChannel.allCases.count)

    public init(configuration: Configuration = Configuration()) {
        precondition(configuration.chunkFrames > 0, "Mixer chunkFrames must be positive")
        self.configuration = configuration
        let format = configuration.format
        channels = format.channels
        let initial = Self.pack(gain: 1, frames: 0, shape: .linear)
        controls = MixerChannel.allCases.map { channel in
            let ms: Int =
                switch channel {
                case .voice: configuration.voiceQueueMilliseconds
                case .media, .rooms: configuration.mediaQueueMilliseconds
                case .earcon, .announcement: configuration.earconQueueMilliseconds
                }
            return MixerChannelControl(
                ringSamples: max(1, format.frames(milliseconds: ms)) * format.channels, gainCommand: initial)
        }
        states = .allocate(capacity: MixerChannel.allCases.count)
        states.initialize(
            repeating: MixerChannelState(ramp: GainRamp(gain: 1), appliedCommand: initial),
            count: MixerChannel.allCases.count)
        scratch = .allocate(capacity: configuration.chunkFrames * format.channels)
        scratch.initialize(repeating: 0)
        accumulator = .allocate(capacity: configuration.chunkFrames * format.channels)
        accumulator.initialize(repeating: 0)
        flushFadeFrames = max(0, format.frames(milliseconds: configuration.flushFadeMilliseconds))
        fadeBuffers = .allocate(capacity: max(1, flushFadeFrames * format.channels * MixerChannel.allCases.count))
        fadeBuffers.initialize(repeating: 0)
        voiceHistory = VoiceRenderHistory(
            capacityFrames: max(0, format.frames(milliseconds: configuration.takeBackMilliseconds)),
            channels: format.channels)
    }

    deinit {
        states.deinitialize(count: MixerChannel.allCases.count)
        states.deallocate()
        scratch.deallocate()
        accumulator.deallocate()
        fadeBuffers.deallocate()
    }

    // MARK: producer side (one thread per input)

    /// Queues whole frames of interleaved device-format samples; returns the frames accepted (the rest
    /// did not fit). Realtime-safe.
    @discardableResult
    public func write(_ samples: UnsafeBufferPointer<Int16>, to channel: MixerChannel) -> Int {
        let control = controls[channel.rawValue]
        let frames = min(samples.count / channels, control.ring.availableToWrite / channels)
        guard frames > 0 else { return 0 }
        let written = control.ring.write(UnsafeBufferPointer(rebasing: samples[0..<(frames * channels)]))
        control.written.add(frames, ordering: .relaxed)
        return written / channels
    }

    /// Frames `write(_:to:)` would accept now (back-pressure for the producer).
    public func availableFrames(toWrite channel: MixerChannel) -> Int {
        controls[channel.rawValue].ring.availableToWrite / channels
    }

    // MARK: control (any thread)

    /// Ramps `channel` to `gain` over `frames` frames, starting at the next period. Repeating the
    /// current request changes nothing (a second duck does not restart or deepen the first).
    public func setGain(_ gain: Float, frames: Int, shape: GainRamp.Shape = .decibel, for channel: MixerChannel) {
        controls[channel.rawValue].gainCommand.store(
            Self.pack(gain: gain, frames: frames, shape: shape), ordering: .releasing)
    }

    public func apply(_ change: GainChange, to channel: MixerChannel) {
        setGain(change.gain, frames: format.frames(milliseconds: change.milliseconds), shape: change.shape, for: channel)
    }

    /// The gain most recently requested for `channel` (not necessarily reached yet).
    public func requestedGain(_ channel: MixerChannel) -> Float {
        Self.unpack(controls[channel.rawValue].gainCommand.load(ordering: .relaxed)).gain
    }

    /// Drops everything queued on `channel` when the render thread next runs (barge-in, media stop).
    /// The first `flushFadeMilliseconds` of it are faded out, the rest never plays.
    /// Returns the flush's sequence number: once `flushesApplied(channel)` reaches it, audio written
    /// afterwards is safe from that flush (before that, the render thread would drop it too).
    @discardableResult
    public func flush(_ channel: MixerChannel) -> Int {
        controls[channel.rawValue].flushRequests.add(1, ordering: .releasing).newValue
    }

    /// Holds `channel`'s queue from the next period on (what is queued stays, and its position does not
    /// move) until unpaused: the assistant stops at once for a possible barge-in and can go on where it
    /// stopped. The queued audio fades out over `flushFadeMilliseconds` when the pause starts and fades
    /// in as much when it ends. A flush still drops the held audio.
    public func setPaused(_ paused: Bool, for channel: MixerChannel) {
        controls[channel.rawValue].paused.store(paused, ordering: .releasing)
    }

    /// Flushes of `channel` the render thread has carried out so far.
    public func flushesApplied(_ channel: MixerChannel) -> Int {
        controls[channel.rawValue].flushesApplied.load(ordering: .acquiring)
    }

    // MARK: counters (any thread; frames since init)

    /// Frames the producer has queued.
    public func framesWritten(_ channel: MixerChannel) -> Int {
        controls[channel.rawValue].written.load(ordering: .relaxed)
    }

    /// Frames of `channel` mixed into the output (flushed frames excluded, fade-out frames included).
    public func framesRendered(_ channel: MixerChannel) -> Int {
        controls[channel.rawValue].rendered.load(ordering: .acquiring)
    }

    /// Frames discarded by `flush`.
    public func framesDropped(_ channel: MixerChannel) -> Int {
        controls[channel.rawValue].dropped.load(ordering: .acquiring)
    }

    /// Index in the written stream (0 = the first frame ever written) just past the last frame mixed.
    /// The frame the listener hears now is `renderedPosition - deviceDelayFrames` (see `playhead`).
    /// Unlike a count, this stays right across a flush.
    public func renderedPosition(_ channel: MixerChannel) -> Int {
        controls[channel.rawValue].position.load(ordering: .acquiring)
    }

    /// The written-stream index of the frame leaving the speaker now, given the device delay in frames
    /// measured on the playback thread (`snd_pcm_delay`) at the same period. For
    /// `conversation.item.truncate`: `audio_end_ms` = ms of `clamp(playhead - itemStart, 0, itemFrames)`
    /// where `itemStart` is `framesWritten(.voice)` when the item's first audio was queued. Exact when
    /// the channel did not run dry within the last `deviceDelayFrames` frames (a gap makes it early by
    /// the gap length, i.e. it never claims unplayed audio).
    public func playhead(_ channel: MixerChannel, deviceDelayFrames: Int) -> Int {
        max(0, renderedPosition(channel) - max(0, deviceDelayFrames))
    }

    /// The playback thread, right after writing a period: the device delay then. Realtime-safe.
    public func stampPlayback(delayFrames: Int, nanoseconds: Int64) {
        playbackStamps.publish(nanoseconds: nanoseconds, delayFrames: delayFrames) {
            controls[$0].position.load(ordering: .acquiring)
        }
    }

    /// When `channel`'s frames are heard, as of the last period written; nil before the first.
    public func playbackStamp(_ channel: MixerChannel) -> MixerPlaybackStamp? {
        playbackStamps.read(channel.rawValue)
    }

    /// Frames queued and not yet rendered (a take-back's included).
    public func framesQueued(_ channel: MixerChannel) -> Int { queuedFrames(channel.rawValue) }

    /// Periods in which the input ran out of audio part-way (a producer underrun or the natural end of
    /// a stream; the rest of that period was silence).
    public func dryRuns(_ channel: MixerChannel) -> Int {
        controls[channel.rawValue].dryRuns.load(ordering: .relaxed)
    }

    // MARK: render (the playback thread only)

    /// Fills `output` (interleaved, a whole number of frames; a partial trailing frame is zeroed) with
    /// the mix. Realtime-safe.
    public func render(into output: UnsafeMutableBufferPointer<Int16>) {
        let totalFrames = output.count / channels
        for i in (totalFrames * channels)..<output.count { output[i] = 0 }
        var done = 0
        while done < totalFrames {
            let frames = min(configuration.chunkFrames, totalFrames - done)
            renderChunk(
                into: UnsafeMutableBufferPointer(rebasing: output[(done * channels)..<((done + frames) * channels)]),
                frames: frames)
            done += frames
        }
    }

    private func renderChunk(into output: UnsafeMutableBufferPointer<Int16>, frames: Int) {
        let samples = frames * channels
        let acc = UnsafeMutableBufferPointer(rebasing: accumulator[0..<samples])
        acc.update(repeating: 0)
        for index in 0..<controls.count {
            let clean = renderChannel(index, into: acc, frames: frames)
            // The voice renders first: the accumulator holds its contribution alone.
            if index == Self.voice { voiceHistory.recordVoice(acc, frames: frames, clean: clean) }
        }
        voiceHistory.recordMix(acc, frames: frames)
        for i in 0..<samples { output[i] = Int16(clamping: acc[i]) }
    }

    static let voice = MixerChannel.voice.rawValue

    /// Mixes input `index` into `acc`. Returns whether every frame came straight from its queue at the
    /// gain alone (no fade, no pause, no gap, nothing taken back before): what a take-back can replace.
    private func renderChannel(_ index: Int, into acc: UnsafeMutableBufferPointer<Int32>, frames: Int) -> Bool {
        let control = controls[index]
        let state = states + index

        let command = control.gainCommand.load(ordering: .acquiring)
        if command != state.pointee.appliedCommand {
            state.pointee.appliedCommand = command
            let (gain, rampFrames, shape) = Self.unpack(command)
            state.pointee.ramp.ramp(to: gain, frames: rampFrames, shape: shape)
        }
        let flushes = control.flushRequests.load(ordering: .acquiring)
        if flushes != state.pointee.flushesSeen {
            state.pointee.flushesSeen = flushes
            startFade(index, control: control, state: state, dropRest: true)
            control.flushesApplied.store(flushes, ordering: .releasing)
        }

        let paused = control.paused.load(ordering: .acquiring) || state.pointee.held
        if paused != state.pointee.paused {
            state.pointee.paused = paused
            if paused {
                startFade(index, control: control, state: state, dropRest: false)
            } else {
                state.pointee.fadeInLeft = flushFadeFrames
            }
        }

        var got = 0
        var clean = !paused && state.pointee.fadeFrames == 0 && state.pointee.fadeInLeft == 0
        // A pending fade-out tail plays first.
        if state.pointee.fadeFrames > 0 {
            let n = min(frames, state.pointee.fadeFrames)
            let start = (index * flushFadeFrames + state.pointee.fadeOffset) * channels
            state.pointee.ramp.mix(
                UnsafeBufferPointer(rebasing: fadeBuffers[start..<(start + n * channels)]),
                into: acc, channels: channels)
            state.pointee.fadeFrames -= n
            state.pointee.fadeOffset += n
            control.position.add(n, ordering: .releasing)
            got = n
        }
        if got < frames, !paused {
            let want = (frames - got) * channels
            let (read, putBack) = readQueued(index, into: UnsafeMutableBufferPointer(rebasing: scratch[0..<want]))
            if putBack > 0 { clean = false }
            if index == Self.voice, read > 0 {
                voiceHistory.recordQueued(UnsafeBufferPointer(rebasing: scratch[0..<(read * channels)]), atFrame: got)
            }
            if read > 0, state.pointee.fadeInLeft > 0 {
                fadeIn(UnsafeMutableBufferPointer(rebasing: scratch[0..<(read * channels)]), state: state)
            }
            if read > 0 {
                state.pointee.ramp.mix(
                    UnsafeBufferPointer(rebasing: scratch[0..<(read * channels)]),
                    into: UnsafeMutableBufferPointer(rebasing: acc[(got * channels)...]),
                    channels: channels)
                control.position.add(state.pointee.positionSkip + read, ordering: .releasing)
                state.pointee.positionSkip = 0
                got += read
            }
        }
        if got > 0 { control.rendered.add(got, ordering: .releasing) }
        if got < frames {
            state.pointee.ramp.skip(frames: frames - got)
            if !paused, got > 0 || state.pointee.wasPlaying { control.dryRuns.add(1, ordering: .relaxed) }
            state.pointee.wasPlaying = false
            clean = false
        } else {
            state.pointee.wasPlaying = true
        }
        return clean
    }

    /// Reads input `index`'s queue: (voice) what a take-back put back first, then its ring. Returns the
    /// frames read, and how many of them were put back.
    private func readQueued(_ index: Int, into buffer: UnsafeMutableBufferPointer<Int16>) -> (frames: Int, putBack: Int) {
        let putBack = index == Self.voice ? voiceHistory.readPutBack(into: buffer) : 0
        let rest = UnsafeMutableBufferPointer(rebasing: buffer[(putBack * channels)...])
        return (putBack + controls[index].ring.read(into: rest) / channels, putBack)
    }

    private func queuedFrames(_ index: Int) -> Int {
        controls[index].ring.availableToRead / channels + (index == Self.voice ? voiceHistory.putBackFrames : 0)
    }

    /// Drops up to `frames` of input `index`'s queue (what was put back first); returns the frames dropped.
    private func skipQueued(_ index: Int, frames: Int) -> Int {
        let putBack = index == Self.voice ? voiceHistory.skipPutBack(frames: frames) : 0
        return putBack + controls[index].ring.skip((frames - putBack) * channels) / channels
    }

    /// Moves the first `flushFadeFrames` queued frames into the fade buffer with a linear fade applied,
    /// and (a flush) drops the rest of the queue or (a pause) leaves it queued.
    private func startFade(
        _ index: Int, control: MixerChannelControl, state: UnsafeMutablePointer<MixerChannelState>,
        dropRest: Bool
    ) {
        // A fade still pending from an earlier flush is abandoned (it is short and already fading).
        state.pointee.fadeFrames = 0
        let queued = queuedFrames(index)
        // A flush of a paused input drops everything: it is silent already.
        let keep = dropRest && state.pointee.paused ? 0 : min(queued, flushFadeFrames)
        if keep > 0 {
            let start = index * flushFadeFrames * channels
            let tail = UnsafeMutableBufferPointer(rebasing: fadeBuffers[start..<(start + keep * channels)])
            _ = readQueued(index, into: tail)
            var fade = GainRamp(gain: 1)
            fade.ramp(to: 0, frames: keep, shape: .linear)
            fade.apply(to: tail, channels: channels)
            state.pointee.fadeFrames = keep
            state.pointee.fadeOffset = 0
        }
        state.pointee.fadeInLeft = 0
        guard dropRest else { return }
        let drop = skipQueued(index, frames: queued - keep)
        if drop > 0 {
            control.dropped.add(drop, ordering: .releasing)
            // The position jumps over the dropped frames only when audio written after them plays.
            state.pointee.positionSkip += drop
        }
    }

    /// Ramps the first frames read after a pause up from silence (linear, `flushFadeFrames` long).
    private func fadeIn(_ samples: UnsafeMutableBufferPointer<Int16>, state: UnsafeMutablePointer<MixerChannelState>) {
        let frames = samples.count / channels
        for frame in 0..<frames {
            let left = state.pointee.fadeInLeft
            guard left > 0 else { return }
            let gain = Float(flushFadeFrames - left + 1) / Float(flushFadeFrames + 1)
            for c in 0..<channels {
                let i = frame * channels + c
                samples[i] = Int16(Float(samples[i]) * gain)
            }
            state.pointee.fadeInLeft = left - 1
        }
    }

    // MARK: command packing

    /// gain bits (32) | shape (1) | ramp frames (31).
    static func pack(gain: Float, frames: Int, shape: GainRamp.Shape) -> UInt64 {
        let g = UInt64(GainRamp.clamp(gain).bitPattern)
        let f = UInt64(min(max(frames, 0), Int(Int32.max)))
        let s: UInt64 = shape == .decibel ? 1 : 0
        return g << 32 | s << 31 | f
    }

    static func unpack(_ word: UInt64) -> (gain: Float, frames: Int, shape: GainRamp.Shape) {
        (
            Float(bitPattern: UInt32(truncatingIfNeeded: word >> 32)),
            Int(word & 0x7FFF_FFFF),
            (word >> 31) & 1 == 1 ? .decibel : .linear
        )
    }
}
