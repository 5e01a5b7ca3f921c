import EchoControl
import Synchronization

/// What the capture chain reports, readable from any thread. Written by `rt:capture` once per chain
/// frame (relaxed atomics; values in tenths where fractional).
public final class CaptureStatistics: Sendable {
    let lagTenthsMs = Atomic<Int>(0)
    let driftTenthsPPM = Atomic<Int>(0)
    let erleTenthsDB = Atomic<Int>(0)
    let echoLevelTenthsDB = Atomic<Int>(-900)
    let speechPercent = Atomic<Int>(0)
    let realignments = Atomic<Int>(0)
    let referenceGainFactor = Atomic<Int>(1)
    let uplinkOverflows = Atomic<Int>(0)
    let frames = Atomic<Int>(0)
    let nearEndFlag = Atomic<Bool>(false)
    let possibleNearEndFlag = Atomic<Bool>(false)
    let farEndFlag = Atomic<Bool>(false)
    let lastNearEnd = Atomic<Int>(-1)
    let bypassed = Atomic<Int>(0)
    let tracked = Atomic<Int>(0)
    /// Milliseconds of audio per chain frame.
    let frameMilliseconds: Int

    init(frameMilliseconds: Int) {
        self.frameMilliseconds = max(1, frameMilliseconds)
    }

    func publish(_ chain: CaptureChain) {
        lagTenthsMs.store(Int((chain.estimatedLagMilliseconds * 10).rounded()), ordering: .relaxed)
        driftTenthsPPM.store(Int((chain.estimatedDriftPPM * 10).rounded()), ordering: .relaxed)
        erleTenthsDB.store(Int((chain.echoReturnLossEnhancementDB * 10).rounded()), ordering: .relaxed)
        echoLevelTenthsDB.store(Int((chain.echoLevelDBFS * 10).rounded()), ordering: .relaxed)
        speechPercent.store(Int((chain.speechProbability * 100).rounded()), ordering: .relaxed)
        realignments.store(chain.realignmentCount, ordering: .relaxed)
        referenceGainFactor.store(chain.referenceGain, ordering: .relaxed)
    }

    /// One more frame of captured audio (processed, tracked or bypassed) with the near-end detector's verdicts
    /// (`possibleNearEndSpeech` nil: the same as `nearEndSpeech`).
    func publishFrame(
        nearEndSpeech: Bool, possibleNearEndSpeech: Bool? = nil, farEndActive: Bool, bypassed wasBypassed: Bool,
        tracked wasTracked: Bool = false
    ) {
        let frame = frames.add(1, ordering: .relaxed).newValue
        if nearEndSpeech { lastNearEnd.store(frame, ordering: .relaxed) }
        nearEndFlag.store(nearEndSpeech, ordering: .relaxed)
        possibleNearEndFlag.store(possibleNearEndSpeech ?? nearEndSpeech, ordering: .relaxed)
        farEndFlag.store(farEndActive, ordering: .relaxed)
        if wasBypassed { bypassed.add(1, ordering: .relaxed) }
        if wasTracked { tracked.add(1, ordering: .relaxed) }
    }

    /// Estimated extra lag of the reference behind the echo, in milliseconds.
    public var lagMilliseconds: Double { Double(lagTenthsMs.load(ordering: .relaxed)) / 10 }
    /// Estimated clock drift between the echo path and the reference, in ppm.
    public var driftPPM: Double { Double(driftTenthsPPM.load(ordering: .relaxed)) / 10 }
    /// The echo canceller's current echo reduction, in dB.
    public var echoReductionDB: Double { Double(erleTenthsDB.load(ordering: .relaxed)) / 10 }
    /// The mic's level while the far end plays (`CaptureChain.echoLevelDBFS`).
    public var echoLevelDBFS: Double { Double(echoLevelTenthsDB.load(ordering: .relaxed)) / 10 }
    /// The preprocessor's speech probability, 0...1.
    public var speechProbability: Double { Double(speechPercent.load(ordering: .relaxed)) / 100 }
    public var realignmentCount: Int { realignments.load(ordering: .relaxed) }
    /// The factor the chain raises the reference by (`CaptureChain.referenceGain`).
    public var referenceGain: Int { referenceGainFactor.load(ordering: .relaxed) }
    /// Uplink samples dropped because nobody drained the ring.
    public var uplinkOverflowSamples: Int { uplinkOverflows.load(ordering: .relaxed) }

    /// Someone near the device is talking (the near-end detector's debounced verdict, latest frame).
    public var nearEndSpeech: Bool { nearEndFlag.load(ordering: .relaxed) }
    /// Someone near the device may be starting to talk (`NearEndActivity.possibleNearEndSpeech`), latest frame.
    public var possibleNearEndSpeech: Bool { possibleNearEndFlag.load(ordering: .relaxed) }
    /// The reference carried sound within the echo tail (echo expected), latest frame.
    public var farEndActive: Bool { farEndFlag.load(ordering: .relaxed) }
    /// Chain frames of captured audio so far (the audio clock).
    public var chainFrames: Int { frames.load(ordering: .relaxed) }
    /// `chainFrames` at the last frame with near-end speech; -1: never.
    public var lastNearEndSpeechFrame: Int { lastNearEnd.load(ordering: .relaxed) }
    /// Frames that skipped the chain (idle: no conversation and a silent reference).
    public var bypassedFrames: Int { bypassed.load(ordering: .relaxed) }
    /// Frames that only kept the echo canceller ready (`CaptureChain.track`: no conversation, the far end
    /// playing).
    public var trackedFrames: Int { tracked.load(ordering: .relaxed) }

    /// Near-end speech was detected in the last `milliseconds` of captured audio.
    public func nearEndSpeech(withinMilliseconds milliseconds: Int) -> Bool {
        let last = lastNearEndSpeechFrame
        guard last >= 0 else { return false }
        return (chainFrames - last) * frameMilliseconds <= milliseconds
    }
}
