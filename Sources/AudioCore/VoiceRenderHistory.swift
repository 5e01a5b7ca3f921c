import Synchronization

/// The mixer's memory of its last rendered frames, for taking back a paused voice (`Mixer.takeBack`):
/// per frame the whole mix before saturation, the voice's contribution to it, and the voice samples as
/// they left its queue; and the voice samples a take-back put back ahead of the queue.
///
/// Render thread only (allocation-free after init), except `putBackFrames`, which any thread may read.
final class VoiceRenderHistory {
    /// Frames remembered.
    let capacity: Int
    let channels: Int
    private let mix: UnsafeMutablePointer<Int32>
    private let voice: UnsafeMutablePointer<Int32>
    private let queued: UnsafeMutablePointer<Int16>
    /// Frames recorded so far; frame `f` lives in slot `f % capacity`.
    private var end = 0
    /// How many of the last recorded frames the voice played straight from its queue (`Mixer`'s clean
    /// frames): only those can be taken back.
    private(set) var cleanFrames = 0
    private let putBack: UnsafeMutablePointer<Int16>
    private var putBackStart = 0
    private var putBackEnd = 0
    private let putBackCount = Atomic<Int>(0)

    init(capacityFrames: Int, channels: Int) {
        capacity = capacityFrames
        self.channels = channels
        let samples = max(1, capacityFrames * channels)
        mix = .allocate(capacity: samples)
        mix.initialize(repeating: 0, count: samples)
        voice = .allocate(capacity: samples)
        voice.initialize(repeating: 0, count: samples)
        queued = .allocate(capacity: samples)
        queued.initialize(repeating: 0, count: samples)
        putBack = .allocate(capacity: samples)
        putBack.initialize(repeating: 0, count: samples)
    }

    deinit {
        mix.deallocate()
        voice.deallocate()
        queued.deallocate()
        putBack.deallocate()
    }

    /// Voice frames put back and not played again yet (any thread).
    var putBackFrames: Int { putBackCount.load(ordering: .relaxed) }

    // MARK: recording (one chunk: recordQueued, recordVoice, then recordMix)

    /// The voice samples read from its queue for the chunk's frames from `frame` on.
    func recordQueued(_ samples: UnsafeBufferPointer<Int16>, atFrame frame: Int) {
        guard capacity > 0, let source = samples.baseAddress else { return }
        Self.copy(source, frames: samples.count / channels, toRing: queued, at: end + frame, capacity: capacity, channels: channels)
    }

    /// The voice's contribution to the chunk (the accumulator after the voice alone). Only a clean chunk
    /// is remembered (nothing else can be taken back), so an idle voice costs nothing.
    func recordVoice(_ acc: UnsafeMutableBufferPointer<Int32>, frames: Int, clean: Bool) {
        guard capacity > 0, clean, let source = acc.baseAddress else {
            cleanFrames = 0
            return
        }
        Self.copy(source, frames: frames, toRing: voice, at: end, capacity: capacity, channels: channels)
        cleanFrames = min(capacity, cleanFrames + frames)
    }

    /// The chunk's whole mix, when its voice was remembered; the chunk is recorded.
    func recordMix(_ acc: UnsafeMutableBufferPointer<Int32>, frames: Int) {
        guard capacity > 0, cleanFrames > 0, let source = acc.baseAddress else { return }
        Self.copy(source, frames: frames, toRing: mix, at: end, capacity: capacity, channels: channels)
        end += frames
    }

    /// Copies `frames` interleaved frames into `ring` from frame `position` on (modulo `capacity`), in at
    /// most two contiguous pieces.
    private static func copy<T>(
        _ source: UnsafePointer<T>, frames: Int, toRing ring: UnsafeMutablePointer<T>, at position: Int,
        capacity: Int, channels: Int
    ) {
        var done = 0
        while done < frames {
            let slot = (position + done) % capacity
            let n = min(frames - done, capacity - slot)
            (ring + slot * channels).update(from: source + done * channels, count: n * channels)
            done += n
        }
    }

    /// What was rendered last may not have reached the device: nothing before now can be taken back.
    func forget() { cleanFrames = 0 }

    // MARK: take-back

    /// Replaces the last `frames` rendered frames with the same mix in which the voice fades out over its
    /// first `fadeFrames` (all of them, when fewer) and is silent after them (`output`, saturated), and
    /// puts the voice samples after the fade back ahead of its queue; returns how many it put back.
    /// Requires `frames <= cleanFrames` (then nothing is put back yet).
    @discardableResult
    func takeBack(frames: Int, fadeFrames requestedFade: Int, into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        precondition(
            frames <= cleanFrames && putBackStart == putBackEnd,
            "VoiceRenderHistory.takeBack beyond what was rendered cleanly")
        let fadeFrames = min(requestedFade, frames)
        let first = end - frames
        for f in 0..<frames {
            let slot = ((first + f) % capacity) * channels
            // The pause's linear fade (Mixer.startFade): 1 - (f + 1) / fadeFrames, then 0.
            let gain = f < fadeFrames ? Float(fadeFrames - f - 1) / Float(fadeFrames) : 0
            for c in 0..<channels {
                let kept = Int32((Float(voice[slot + c]) * gain).rounded())
                mix[slot + c] += kept - voice[slot + c]
                voice[slot + c] = kept
                output[f * channels + c] = Int16(clamping: mix[slot + c])
            }
        }
        let n = frames - fadeFrames
        for f in 0..<n {
            let slot = ((first + fadeFrames + f) % capacity) * channels
            (putBack + f * channels).update(from: queued + slot, count: channels)
        }
        putBackStart = 0
        putBackEnd = n
        putBackCount.store(n, ordering: .relaxed)
        cleanFrames = 0
        return n
    }

    /// Reads put-back frames into `buffer` (interleaved); returns the frames read.
    func readPutBack(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        let n = min(putBackEnd - putBackStart, buffer.count / channels)
        guard n > 0, let destination = buffer.baseAddress else { return 0 }
        destination.update(from: putBack + putBackStart * channels, count: n * channels)
        putBackStart += n
        putBackCount.store(putBackEnd - putBackStart, ordering: .relaxed)
        return n
    }

    /// Drops up to `frames` put-back frames; returns how many.
    func skipPutBack(frames: Int) -> Int {
        let n = min(putBackEnd - putBackStart, max(0, frames))
        putBackStart += n
        putBackCount.store(putBackEnd - putBackStart, ordering: .relaxed)
        return n
    }
}
