import Synchronization

/// The echo reference path from `rt:playback` to `rt:capture`.
///
/// The playback loop pushes, per period, what it actually wrote (mixed to mono) together with the
/// device delay measured right after the write; from that it publishes the CLOCK_MONOTONIC time at
/// which reference sample 0 is heard (`origin`). The capture loop asks for the samples that were
/// being heard when its period's first frame was captured (its own delay gives that time). Both
/// devices' buffering is thereby compensated; what remains is the acoustic path, which the echo
/// canceller's filter covers (plus `extraDelayFrames` when calibrated).
///
/// Lock-free and allocation-free after init: one producer thread, one consumer thread. The history
/// is a ring addressed by absolute sample index; the consumer reads samples at most `capacity / 2`
/// old, far away from where the producer writes.
public final class ReferenceTap: @unchecked Sendable {
    public let sampleRate: Int
    public let capacity: Int
    private let history: UnsafeMutablePointer<Int16>
    private let written = Atomic<Int>(0)
    private let origin = Atomic<Int64>(Int64.min)
    private let extraDelay = Atomic<Int>(0)
    /// Consumer-only: where the previous pull ended (nil before the first aligned pull).
    private var nextIndex: Int?
    /// The consumer keeps reading contiguously while the measured alignment stays within this many
    /// frames of it, so period-to-period jitter in the delay measurements does not shift the
    /// reference under the echo canceller; beyond it the read position jumps to the measurement.
    public let resyncThresholdFrames: Int

    /// `sampleRate` must be the rate both loops run at. `capacityFrames` defaults to 2 s,
    /// `resyncThresholdFrames` to 1 ms.
    public init(sampleRate: Int, capacityFrames: Int? = nil, resyncThresholdFrames: Int? = nil) {
        self.sampleRate = sampleRate
        self.resyncThresholdFrames = resyncThresholdFrames ?? max(1, sampleRate / 1000)
        capacity = capacityFrames ?? sampleRate * 2
        history = .allocate(capacity: capacity)
        history.initialize(repeating: 0, count: capacity)
    }

    deinit { history.deallocate() }

    /// Additional frames by which the reference is taken earlier (an acoustic offset calibrated
    /// elsewhere); 0 by default.
    public var extraDelayFrames: Int {
        get { extraDelay.load(ordering: .relaxed) }
        set { extraDelay.store(newValue, ordering: .relaxed) }
    }

    /// Producer (rt:playback): `interleaved` was just written to the device, after which
    /// snd_pcm_delay reported `delayFrames` at `nanoseconds`.
    public func playbackWrote(
        _ interleaved: UnsafeBufferPointer<Int16>, channels: Int, delayFrames: Int, atNanoseconds nanoseconds: Int64
    ) {
        let frames = interleaved.count / channels
        var index = written.load(ordering: .relaxed)
        for f in 0..<frames {
            var sum = 0
            for c in 0..<channels { sum += Int(interleaved[f * channels + c]) }
            history[index % capacity] = Int16(truncatingIfNeeded: sum / channels)
            index += 1
        }
        written.store(index, ordering: .releasing)
        // The last written sample (index - 1) is heard delayFrames after now.
        let heard = Double(index - delayFrames) * 1e9 / Double(sampleRate)
        origin.store(nanoseconds - Int64(heard.rounded()), ordering: .releasing)
    }

    /// Consumer (rt:capture): fills `out` with the reference that was being heard from the capture
    /// instant `firstFrameNanoseconds` on, one sample per captured frame. Samples that are not (or
    /// no longer) available are zero. Returns how many samples came from the history.
    @discardableResult
    public func pull(into out: UnsafeMutableBufferPointer<Int16>, firstFrameNanoseconds: Int64) -> Int {
        let origin = origin.load(ordering: .acquiring)
        let end = written.load(ordering: .acquiring)
        guard origin != Int64.min else {
            nextIndex = nil
            out.update(repeating: 0)
            return 0
        }
        let measured = Int((Double(firstFrameNanoseconds - origin) * Double(sampleRate) / 1e9).rounded())
            - extraDelay.load(ordering: .relaxed)
        var first = measured
        if let next = nextIndex, abs(next - measured) <= resyncThresholdFrames { first = next }
        nextIndex = first + out.count
        let oldest = max(0, end - capacity / 2)
        var available = 0
        for j in 0..<out.count {
            let i = first + j
            if i >= oldest && i < end {
                out[j] = history[i % capacity]
                available += 1
            } else {
                out[j] = 0
            }
        }
        return available
    }
}
