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
/// A playback xrun or reopen starts a new run of the stream: the samples written since are heard
/// from the restart on, after a gap of silence, so the history index no longer maps to time by one
/// origin. Each run has its own origin; samples of the previous run are only handed out for the
/// instants at which they were heard, and the gap in between is silence. A run's origin is unknown
/// (its samples are not handed out) until the device plays it: samples queued before the stream
/// starts are heard from the start on, not from when they were written.
///
/// Lock-free and allocation-free after init: one producer thread, one consumer thread. The history
/// is a ring addressed by absolute sample index; the consumer reads samples at most `capacity / 2`
/// old, far away from where the producer writes.
public final class ReferenceTap: @unchecked Sendable {
    public let sampleRate: Int
    public let capacity: Int
    private let history: UnsafeMutablePointer<Int16>
    private let written = Atomic<Int>(0)
    /// Runs, in a ring of `runSlots` records published by `runGeneration`: the producer fills the
    /// next slot, then bumps the generation; the current slot's origin follows every write. The
    /// consumer reads the current and the previous slot and checks the generation did not move.
    private static let runSlots = 4
    private let runStarts: UnsafeMutablePointer<Atomic<Int>>
    private let runOrigins: UnsafeMutablePointer<Atomic<Int64>>
    private let runGeneration = Atomic<Int>(0)
    private let extraDelay = Atomic<Int>(0)
    /// Producer-only: the playback loop's stream run the last write belonged to.
    private var producerRun: Int?
    /// Consumer-only: where the previous pull ended in the current run (nil before the first aligned
    /// pull of a run), and which run that was.
    private var nextIndex: Int?
    private var consumerGeneration = -1
    /// Consumer-only, a diagnostic read on the consumer's thread: the last aligned pull's measured
    /// read position (unrounded) minus the position read, in samples. Its mean over a contiguous
    /// stretch is the sub-sample offset at which that stretch is read; a stream restart gives it a
    /// new one (the devices restart at a new phase, and the first measurement after it decides).
    public private(set) var alignmentResidual = 0.0
    /// Consumer-only: how often a pull has taken its alignment from a fresh measurement (a new run of the
    /// playback stream, or the measurement beyond `resyncThresholdFrames` from the continued position).
    /// The whole-sample rounding may change there (`ReferenceSlipCheck`).
    public private(set) var alignmentEpoch = 0
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
    /// Producer-only: converter output still owed to playback frames that were taken back (dropped).
    private var staleOutput = 0

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
        converter =
            self.playbackRate == sampleRate
            ? nil : try Resampler(inputRate: self.playbackRate, outputRate: sampleRate, quality: 3)
        runStarts = .allocate(capacity: Self.runSlots)
        runOrigins = .allocate(capacity: Self.runSlots)
        for slot in 0..<Self.runSlots {
            (runStarts + slot).initialize(to: Atomic<Int>(0))
            (runOrigins + slot).initialize(to: Atomic<Int64>(Int64.min))
        }
    }

    deinit {
        runStarts.deinitialize(count: Self.runSlots)
        runStarts.deallocate()
        runOrigins.deinitialize(count: Self.runSlots)
        runOrigins.deallocate()
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

    /// Producer (rt:playback): `interleaved` was just written to the device, which was playing, and
    /// snd_pcm_delay reported `delayFrames` at `nanoseconds` right after (one uninterrupted run).
    public func playbackWrote(
        _ interleaved: UnsafeBufferPointer<Int16>, channels: Int, delayFrames: Int, atNanoseconds nanoseconds: Int64
    ) {
        playbackWrote(
            interleaved, channels: channels, run: producerRun ?? 0,
            clock: PlaybackClock(delayFrames: delayFrames, nanoseconds: nanoseconds))
    }

    /// Producer (rt:playback): `interleaved` was just written to the device in stream run `run` (a
    /// number that changes whenever the stream was restarted: xrun recovery, reopen). `clock` is the
    /// device delay measured right after the write while the device plays; nil while it has not
    /// started (the samples wait for the start threshold) or the delay could not be read.
    public func playbackWrote(
        _ interleaved: UnsafeBufferPointer<Int16>, channels: Int, run: Int, clock: PlaybackClock?
    ) {
        let frames = interleaved.count / channels
        var index = written.load(ordering: .relaxed)
        if run != producerRun {
            producerRun = run
            beginRun(at: index)
        }
        guard let converter else {
            for f in 0..<frames {
                history[index % capacity] = Self.downmix(interleaved, frame: f, channels: channels)
                index += 1
            }
            publish(written: index, delay: clock.map { Double($0.delayFrames) }, atNanoseconds: clock?.nanoseconds ?? 0)
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
                if staleOutput > 0 {
                    staleOutput -= 1
                    continue
                }
                history[index % capacity] = 0
                index += 1
            }
        } else {
            silentFrames = 0
            // In chunks of the scratch buffers: a device may grant a longer period than was asked for.
            var start = 0
            while start < frames {
                let count = min(frames - start, mono.count)
                for f in 0..<count { mono[f] = Self.downmix(interleaved, frame: start + f, channels: channels) }
                let (_, produced) = converter.process(
                    input: UnsafeBufferPointer(rebasing: mono[0..<count]), output: converted)
                for j in 0..<produced {
                    if staleOutput > 0 {
                        staleOutput -= 1
                        continue
                    }
                    history[index % capacity] = converted[j]
                    index += 1
                }
                start += count
            }
        }
        silentPeriods = silent ? silentPeriods + 1 : 0
        // The converter holds back `outputLatency` samples: the newest history sample left the
        // device's queue that much earlier than the newest written playback frame.
        let delay = clock.map { Double($0.delayFrames) * Double(sampleRate) / Double(playbackRate) - Double(converter.outputLatency) }
        publish(written: index, delay: delay, atNanoseconds: clock?.nanoseconds ?? 0)
    }

    /// Playback frames per whole number of history samples: what `playbackTookBack` takes back in.
    public var takeBackGranularity: Int {
        var (a, b) = (playbackRate, sampleRate)
        while b != 0 { (a, b) = (b, a % b) }
        return playbackRate / max(1, a)
    }

    /// Producer (rt:playback): the device took back the last `frames` playback frames written
    /// (`snd_pcm_rewind`, a multiple of `takeBackGranularity`); the next writes replace them. The history
    /// goes back by as many samples, so what replaces them is heard at their instants. The converter still
    /// holds its latency's worth of them: that much of its next output is dropped (its filter memory
    /// blends the frames taken back into the first replacement samples, about a millisecond).
    public func playbackTookBack(frames: Int) {
        let samples = frames * sampleRate / playbackRate
        guard samples > 0 else { return }
        var index = written.load(ordering: .relaxed)
        if let converter {
            let held = min(samples, converter.outputLatency)
            index -= samples - held
            staleOutput += held
            silentPeriods = 0
            silentFrames = 0
        } else {
            index -= samples
        }
        publish(written: index, delay: nil, atNanoseconds: 0)
    }

    /// A new run starts at history index `index`; its origin is unknown until it plays.
    private func beginRun(at index: Int) {
        let next = runGeneration.load(ordering: .relaxed) + 1
        let slot = next % Self.runSlots
        runStarts[slot].store(index, ordering: .relaxed)
        runOrigins[slot].store(Int64.min, ordering: .relaxed)
        runGeneration.store(next, ordering: .releasing)
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

    /// The last history sample (index `written - 1`) is heard `delay` samples after `nanoseconds`
    /// (nil: not known; the run keeps the origin it has).
    private func publish(written index: Int, delay: Double?, atNanoseconds nanoseconds: Int64) {
        written.store(index, ordering: .releasing)
        guard let delay else { return }
        let heard = (Double(index) - delay) * 1e9 / Double(sampleRate)
        let slot = runGeneration.load(ordering: .relaxed) % Self.runSlots
        runOrigins[slot].store(nanoseconds - Int64(heard.rounded()), ordering: .releasing)
    }

    /// The current run (where it starts, its origin) and the previous run's origin, as one snapshot.
    private struct Runs {
        var generation: Int
        var start: Int
        var origin: Int64
        var previousOrigin: Int64
    }

    /// nil when the producer started runs faster than this could read them (then try again).
    private func loadRuns() -> Runs? {
        let generation = runGeneration.load(ordering: .acquiring)
        let slot = generation % Self.runSlots
        let start = runStarts[slot].load(ordering: .acquiring)
        let origin = runOrigins[slot].load(ordering: .acquiring)
        let previousOrigin =
            generation > 0
            ? runOrigins[(generation - 1) % Self.runSlots].load(ordering: .acquiring) : Int64.min
        guard runGeneration.load(ordering: .acquiring) == generation else { return nil }
        return Runs(generation: generation, start: start, origin: origin, previousOrigin: previousOrigin)
    }

    /// The history position (unrounded) heard at `nanoseconds` by a run with this origin.
    private func position(at nanoseconds: Int64, origin: Int64) -> Double {
        Double(nanoseconds - origin) * Double(sampleRate) / 1e9 - Double(extraDelay.load(ordering: .relaxed))
    }

    /// Consumer (rt:capture): fills `out` with the reference that was being heard from the capture
    /// instant `firstFrameNanoseconds` on, one sample per captured frame. Samples that are not (or
    /// no longer) available are zero. Returns how many samples came from the history.
    @discardableResult
    public func pull(into out: UnsafeMutableBufferPointer<Int16>, firstFrameNanoseconds: Int64) -> Int {
        var snapshot = loadRuns()
        if snapshot == nil { snapshot = loadRuns() }
        let end = written.load(ordering: .acquiring)
        guard let runs = snapshot, runs.origin != Int64.min || runs.previousOrigin != Int64.min else {
            nextIndex = nil
            out.update(repeating: 0)
            return 0
        }
        if runs.generation != consumerGeneration {
            consumerGeneration = runs.generation
            nextIndex = nil
        }
        // The current run: contiguous while the measurement stays within the threshold.
        var first: Int?
        if runs.origin != Int64.min {
            let exact = position(at: firstFrameNanoseconds, origin: runs.origin)
            let measured = Int(exact.rounded())
            var aligned = measured
            if let next = nextIndex, abs(next - measured) <= resyncThresholdFrames {
                aligned = next
            } else {
                alignmentEpoch &+= 1
            }
            nextIndex = aligned + out.count
            first = aligned
            alignmentResidual = exact - Double(aligned)
        }
        // The previous run, for instants at which it was still being heard (a capture period from
        // before the restart read after it): its samples up to where the current run starts.
        let previousFirst =
            runs.previousOrigin != Int64.min
            ? Int(position(at: firstFrameNanoseconds, origin: runs.previousOrigin).rounded()) : nil
        let oldest = max(0, end - capacity / 2)
        var available = 0
        for j in 0..<out.count {
            var i = -1
            if let first, first + j >= runs.start {
                i = first + j
            } else if let previousFirst, previousFirst + j < runs.start {
                i = previousFirst + j
            }
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
