import SpeexDSP
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

    /// The playback side's rate; when it differs from `sampleRate` the downmixed output is
    /// resampled once, on the playback thread, before it enters the history.
    public let playbackRate: Int
    private let converter: Resampler?
    /// Producer-only scratch: one downmixed playback period (up to `maxPlaybackPeriodFrames`).
    private let mono: UnsafeMutableBufferPointer<Int16>
    private let converted: UnsafeMutableBufferPointer<Int16>
    /// Producer-only: consecutive all-zero periods, and the fraction of a reference sample owed by the
    /// skipped conversions (in playback-rate × sample-rate units).
    private var silentPeriods = 0
    private var silentFrames = 0

    /// `sampleRate` is the capture loop's rate (the history's rate). `playbackRate` defaults to the
    /// same. `capacityFrames` defaults to 2 s, `resyncThresholdFrames` to 1 ms,
    /// `maxPlaybackPeriodFrames` (scratch for rate conversion) to 100 ms of playback.
    public init(
        sampleRate: Int, playbackRate: Int? = nil, capacityFrames: Int? = nil, resyncThresholdFrames: Int? = nil,
        maxPlaybackPeriodFrames: Int? = nil
    ) throws(SpeexDSPError) {
        self.sampleRate = sampleRate
        self.playbackRate = playbackRate ?? sampleRate
        self.resyncThresholdFrames = resyncThresholdFrames ?? max(1, sampleRate / 1000)
        capacity = capacityFrames ?? sampleRate * 2
        history = .allocate(capacity: capacity)
        history.initialize(repeating: 0, count: capacity)
        let scratch = maxPlaybackPeriodFrames ?? self.playbackRate / 10
        mono = .allocate(capacity: scratch)
        mono.initialize(repeating: 0)
        converted = .allocate(capacity: scratch * sampleRate / self.playbackRate + 16)
        converted.initialize(repeating: 0)
        converter = self.playbackRate == sampleRate
            ? nil : try Resampler(inputRate: self.playbackRate, outputRate: sampleRate, quality: 3)
    }

    deinit {
        history.deallocate()
        mono.deallocate()
        converted.deallocate()
    }

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
        let frames = min(interleaved.count / channels, converter == nil ? Int.max : mono.count)
        var index = written.load(ordering: .relaxed)
        guard let converter else {
            for f in 0..<frames {
                history[index % capacity] = Self.downmix(interleaved, frame: f, channels: channels)
                index += 1
            }
            publish(written: index, delay: Double(delayFrames), atNanoseconds: nanoseconds)
            return
        }
        // Nothing played (idle): silence needs no filtering. Once the converter has been fed a whole
        // silent period its memory is silent too, so skipping it and writing the period's share of
        // zeros is exactly what it would have produced (give or take a sample of phase).
        let silent = Self.isSilent(interleaved, samples: frames * channels)
        if silent && silentPeriods > 0 {
            silentFrames += frames * sampleRate
            let produced = silentFrames / playbackRate
            silentFrames -= produced * playbackRate
            for _ in 0..<produced {
                history[index % capacity] = 0
                index += 1
            }
        } else {
            silentFrames = 0
            for f in 0..<frames { mono[f] = Self.downmix(interleaved, frame: f, channels: channels) }
            let (_, produced) = converter.process(
                input: UnsafeBufferPointer(rebasing: mono[0..<frames]), output: converted)
            for j in 0..<produced {
                history[index % capacity] = converted[j]
                index += 1
            }
        }
        silentPeriods = silent ? silentPeriods + 1 : 0
        // The converter holds back `outputLatency` samples: the newest history sample left the
        // device's queue that much earlier than the newest written playback frame.
        let delay = Double(delayFrames) * Double(sampleRate) / Double(playbackRate) - Double(converter.outputLatency)
        publish(written: index, delay: delay, atNanoseconds: nanoseconds)
    }

    private static func isSilent(_ interleaved: UnsafeBufferPointer<Int16>, samples: Int) -> Bool {
        var any: Int16 = 0
        for i in 0..<min(samples, interleaved.count) { any |= interleaved[i] }
        return any == 0
    }

    @inline(__always)
    private static func downmix(_ interleaved: UnsafeBufferPointer<Int16>, frame: Int, channels: Int) -> Int16 {
        var sum = 0
        for c in 0..<channels { sum += Int(interleaved[frame * channels + c]) }
        return Int16(truncatingIfNeeded: sum / channels)
    }

    /// The last history sample (index `written - 1`) is heard `delay` samples after `nanoseconds`.
    private func publish(written index: Int, delay: Double, atNanoseconds nanoseconds: Int64) {
        written.store(index, ordering: .releasing)
        let heard = (Double(index) - delay) * 1e9 / Double(sampleRate)
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
