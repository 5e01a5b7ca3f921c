import Glibc
import SpeexDSP

/// The service's capture DSP chain at 16 kHz mono, one frame at a time:
///
///     mic ─► mic delay line ───────────────────────────────────┐
///                                                              ├─► echo canceller ─► residual echo suppressor ─► preprocessor (NS, AGC, RES, speech prob.) ─► out (16 kHz)
///     ref ─► drift resampler ─► reference FIFO ─► level match ─┘    (+ near-end detector) └► uplink resampler ─► 24 kHz
///
/// While the aligned reference has been digitally silent for longer than the echo tail, the echo
/// canceller, delay estimator and drift tracker are skipped (`echoCancellerIdle`); the filter is kept, so
/// it is still converged when sound resumes.
///
/// Between conversations, while the far end plays and nobody listens, `track` keeps the chain ready for a
/// conversation at a fraction of its cost: the canceller, delay estimator, drift tracker and level matcher
/// adapt exactly as in `process` until the filter explains the echo (10 s at most), then rest, keeping
/// only the last seconds of input (`rested`). The next `process` (or `bypass`) first adapts on those, then
/// runs the residual echo suppressor and the preprocessor over the last of them (`lookback`), so a
/// conversation that starts over music meets all of them warm.
///
/// The reference is only "nominally aligned". A `DelayEstimator` (GCC-PHAT) measures the residual
/// lag between what the echo canceller is given; when two consecutive estimates agree and the echo
/// sits outside the comfortable part of the filter, the chain moves the FIFO read position (or, for
/// an echo earlier than the reference, delays the mic) with a one-frame crossfade and resets the
/// echo canceller. A `DriftCompensator` tracks the canceller's impulse-response peak and adjusts
/// the reference resampler's ratio; the FIFO fill absorbs the difference and is re-centred when needed.
/// After a capture gap, or where the reference tap aligned the reference afresh (a playback restart), the
/// devices may have come back a whole sample off each other: on the first frame of far-end sound after it,
/// a `ReferenceSlipCheck` asks the adapted filter before the canceller sees the frame, and the chain moves
/// the reference by the slip it finds instead of letting speex relearn.
///
/// Where the echo is louder than the reference (a hardware loopback channel, a hot mic), a
/// `ReferenceLevelMatcher` raises the aligned reference by a power of two before anything uses it; after
/// a change of gain the canceller starts again and the suppressor rescales what it holds of the reference.
///
/// Realtime-safe: `process` allocates nothing, takes no locks and does bounded work. Not
/// thread-safe: one thread at a time (`@unchecked Sendable` only so an owner can hand it to the
/// realtime capture thread).
public final class CaptureChain: @unchecked Sendable {
    /// Owns every buffer below.
    private let buffers = BufferStore()
    public let configuration: CaptureChainConfiguration
    public let frameSize: Int
    public let uplinkFrameSize: Int

    let echo: EchoCanceller
    let preprocessor: Preprocessor
    let uplinkResampler: Resampler
    let drift: DriftCompensator
    let estimator: DelayEstimator
    let suppressor: ResidualEchoSuppressor?
    let slipCheck: ReferenceSlipCheck
    private var referenceLevel: ReferenceLevelMatcher
    /// What the suppressor and the preprocessor have not seen since `track` began (see `track`).
    let lookback: SuppressorLookback
    /// The inputs `track` rested through, which the canceller has not seen yet (see `track`).
    let rested: RestedInputs
    /// Frames of far-end sound the canceller adapted on in `track` since the chain last ran in full.
    private var framesAdaptedInTrack = 0
    /// After this many of those the canceller rests even if its filter does not explain the echo.
    private let adaptInTrackAtMost: Int
    /// The reference gain the suppressor's held state is scaled to (nil until it first runs: a fresh
    /// suppressor holds nothing of the reference to rescale).
    private var suppressorGain: Int?

    /// The echo's direct path is kept this many samples into the filter (causality margin).
    let margin: Int
    /// Minimum reference FIFO fill after a read (absorbs drift between re-centrings).
    let slack: Int
    /// Re-align when the echo sits later than this in the filter.
    let lateTolerance: Int
    let maxDelay: Int
    /// `max_reference_lag_ms = 0` turns the delay estimator off (the reference is trusted as given).
    let estimatorEnabled: Bool

    private let micRing: UnsafeMutablePointer<Int16>
    private let refRing: UnsafeMutablePointer<Int16>
    private let ringMask: Int
    private var micWrite = 0
    private var micDelay: Int
    private var refWrite = 0
    private var refRead: Int
    private var fadeFromMicDelay = -1
    private var fadeFromRefRead = 0
    private var fadePending = false

    private let alignedMic: UnsafeMutableBufferPointer<Int16>
    private let alignedRef: UnsafeMutableBufferPointer<Int16>
    private let processed: UnsafeMutableBufferPointer<Int16>
    private let resampled: UnsafeMutableBufferPointer<Int16>

    private var candidateLag: Double?
    private var micPower: Float = 0
    private var residualPower: Float = 0
    private var framesSinceReset = 0
    private var referenceActive = false
    private var silentReferenceFrames = Int.max / 2
    private let idleAfterFrames: Int
    /// Frames still to keep away from the canceller after a capture gap (`captureInterrupted`).
    private var framesToBridge = 0
    /// The reference was aligned afresh; the slip check runs where far-end sound next resumes.
    private var slipCheckAwaitsResume = false
    /// Output samples still to keep out of the uplink after `bypass`: what the chain's delay line held
    /// from before it (see `bypass`).
    private var staleOutputSamples = 0
    private var bypassed = false
    /// The uplink carried silence in place of the output (`track`): the resampler starts afresh on the next
    /// samples it gets, so nothing from before the silence follows it.
    private var uplinkSilenced = false
    /// Input samples the silence stood for, modulo the input rate (the uplink sample count follows from it).
    private var silencedInput = 0
    /// speexdsp's residual echo suppression is set to 0 dB during near-end speech (`letTalkerThrough`).
    private var preprocessorLetsTalkerThrough = false
    /// Mic samples inside the chain that have not reached its output yet: what it processed since the
    /// last bypass, at most its latency (0 before any processing).
    private var micInsideChain = 0
    /// The mic still inside the chain when a bypass begins, in order (see `bypass`).
    private let pending: UnsafeMutableBufferPointer<Int16>

    /// Near-end / far-end verdict of the last frame (the residual echo suppressor's detector; without
    /// it, the preprocessor's speech probability >= 0.5).
    public private(set) var nearEnd = NearEndActivity()
    /// What the residual echo suppressor did in the last frame (without it, only whether the far end played),
    /// for diagnostics.
    public var suppression: SuppressionState { suppressor?.state ?? SuppressionState(farEndActive: nearEnd.farEndActive) }
    /// The canceller (and the delay estimator, drift tracker) skipped the last frame: the reference has
    /// been silent for longer than the echo tail.
    public private(set) var echoCancellerIdle = true

    /// Echo lag relative to the reference as given (ms), from the last confident estimate.
    public private(set) var estimatedLagMilliseconds: Double = 0
    /// Current reference resampling correction (ppm; positive: the echo path runs fast).
    public var estimatedDriftPPM: Double { drift.correctionPPM }
    /// Speech probability (0...1) of the last frame, from the preprocessor.
    public private(set) var speechProbability: Float = 0
    /// Smoothed echo return loss enhancement of the linear canceller (dB), updated while the reference is active.
    public private(set) var echoReturnLossEnhancementDB: Float = 0
    /// How loud the mic is while the far end plays (dBFS; -90 before it has played): the echo the
    /// canceller works on, near the noise floor when the mic does not hear the speaker at all.
    public var echoLevelDBFS: Float { 10 * log10f((micPower + 1) / (32_768 * 32_768)) }
    /// How often the reference was re-aligned (delay jumps) since start.
    public private(set) var realignmentCount = 0
    /// How often the reference came back whole samples off the echo after a gap and was moved back
    /// (`ReferenceSlipCheck`) since start.
    public private(set) var referenceSlips = 0
    /// The factor the reference is raised by (`ReferenceLevelMatcher`; 1 until the echo is found louder).
    public var referenceGain: Int { referenceLevel.gain }
    /// The reference has not been raised yet but may be (`referenceGain` is still 1 with level matching on).
    public var referenceMayBeRaised: Bool { referenceLevel.mayRaise }
    /// Delay from mic input to 16 kHz output, in samples (mic delay line + the output delay).
    public var latencySamples: Int { micDelay + outputDelayFrames * frameSize }
    /// Frames between a frame entering the canceller and leaving the chain (preprocessor: 1, suppressor: 1).
    public var outputDelayFrames: Int { suppressor == nil ? 1 : 2 }
    /// Current mic delay line length in samples (the part of `latencySamples` that re-alignment changes).
    public var micDelaySamples: Int { micDelay }
    /// Current reference FIFO fill after the last read, in samples (diagnostics).
    public var referenceFillSamples: Int { refWrite - refRead }

    public init(configuration: CaptureChainConfiguration = .init()) throws(CaptureChainError) {
        let problems = configuration.problems
        guard problems.isEmpty else { throw .invalidConfiguration(problems) }
        self.configuration = configuration
        let rate = CaptureChainConfiguration.sampleRate
        frameSize = configuration.frameSize
        uplinkFrameSize = configuration.uplinkFrameSize
        do {
            echo = try EchoCanceller(frameSize: frameSize, filterLength: configuration.filterLength, sampleRate: rate)
            preprocessor = try Preprocessor(frameSize: frameSize, sampleRate: rate)
            try preprocessor.setDenoise(true)
            try preprocessor.setNoiseSuppress(dB: configuration.noiseSuppressDB)
            try preprocessor.setAGC(configuration.agc)
            try preprocessor.setAGCLevel(Float(configuration.agcLevel))
            try preprocessor.linkEchoCanceller(echo)
            try preprocessor.setEchoSuppress(dB: configuration.echoSuppressDB)
            try preprocessor.setEchoSuppressActive(dB: configuration.echoSuppressActiveDB)
            uplinkResampler = try Resampler(inputRate: rate, outputRate: CaptureChainConfiguration.uplinkSampleRate, quality: 5)
            drift = try DriftCompensator(
                frameSize: frameSize, impulseResponseLength: echo.impulseResponseLength, sampleRate: rate,
                enabled: configuration.driftCompensation)
        } catch {
            throw .speex(error)
        }
        let maxLag = rate * configuration.maxReferenceLagMs / 1000
        estimator = DelayEstimator(sampleRate: rate, maxLagSamples: maxLag)
        estimatorEnabled = maxLag > 0
        slipCheck = ReferenceSlipCheck(frameSize: frameSize, impulseResponseLength: echo.impulseResponseLength)
        suppressor =
            configuration.residualEchoSuppressor
            ? ResidualEchoSuppressor(frameSize: frameSize, sampleRate: rate, tailSamples: configuration.filterLength) : nil
        idleAfterFrames = configuration.filterLength / frameSize + 1
        let size = frameSize
        let frames = { (milliseconds: Int) in (milliseconds * rate / 1000 + size - 1) / size }
        lookback = SuppressorLookback(frameSize: frameSize, capacity: frames(EchoControlTuning.BetweenConversations.lookbackMilliseconds))
        rested = RestedInputs(frameSize: frameSize, capacity: frames(EchoControlTuning.BetweenConversations.restedMilliseconds))
        adaptInTrackAtMost = frames(EchoControlTuning.BetweenConversations.adaptAtMostMilliseconds)
        let framesPerSecond = rate / frameSize
        referenceLevel = ReferenceLevelMatcher(
            maxShift: configuration.matchReferenceLevel ? 4 : 0,
            settleFrames: framesPerSecond, peakHoldFrames: 60 * framesPerSecond)
        margin = rate * 4 / 1000
        slack = 32
        lateTolerance = max(margin + rate * 16 / 1000, configuration.filterLength / 8)
        maxDelay = maxLag + margin + slack + drift.latency + 4 * frameSize
        var capacity = 1024
        while capacity < maxDelay + 4 * frameSize { capacity <<= 1 }
        ringMask = capacity - 1
        micRing = buffers.take(capacity, 0)
        refRing = buffers.take(capacity, 0)
        // Nominal alignment: the echo's direct path lands `margin` samples into the filter.
        micDelay = margin + slack + drift.latency
        refRead = -slack
        alignedMic = buffers.takeBuffer(frameSize, 0)
        alignedRef = buffers.takeBuffer(frameSize, 0)
        processed = buffers.takeBuffer(frameSize, 0)
        resampled = buffers.takeBuffer(2 * frameSize + 64, 0)
        pending = buffers.takeBuffer(maxDelay + 2 * frameSize, 0)
    }

    /// speexdsp's residual echo suppression (linked to the canceller) takes up to `echo_suppress_active_db`
    /// from frames its own speech probability calls speech, talker or echo alike. While the suppressor hears
    /// a talker (its talker detector, or a published verdict) it is set to 0 dB: the suppressor already
    /// keeps the talker's bands and removes the echo around them. Following the talker detector rather than
    /// only the verdict, which rarely fires over music, kept 0.2-0.5 dB more of the near end in double talk
    /// (Benchmarks/aec-real/JOURNAL.md, "speexdsp's suppression follows the talker detector").
    private func letTalkerThrough(_ talking: Bool) {
        guard talking != preprocessorLetsTalkerThrough else { return }
        preprocessorLetsTalkerThrough = talking
        // Accepted in init with the configured value; speexdsp takes any value for this request.
        try? preprocessor.setEchoSuppressActive(dB: talking ? 0 : configuration.echoSuppressActiveDB)
    }

    /// Processes one frame: `mic` and `reference` hold `frameSize` samples at 16 kHz, `output`
    /// receives `frameSize` echo-cancelled, preprocessed samples (delayed by `latencySamples`).
    /// After `track`, the suppressor and the preprocessor first run over the frames it kept.
    public func process(mic: UnsafeBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>, output: UnsafeMutableBufferPointer<Int16>) {
        precondition(
            mic.count == frameSize && reference.count == frameSize && output.count >= frameSize,
            "CaptureChain.process takes frames of frameSize samples")
        adaptOnRested()
        catchUp()
        let bridging = adapt(mic: mic, reference: reference)
        suppressAndPreprocess(
            processed, reference: UnsafeBufferPointer(alignedRef), mic: UnsafeBufferPointer(alignedMic), gain: referenceLevel.gain)
        nearEnd =
            suppressor?.activity
            ?? NearEndActivity(farEndActive: referenceActive, nearEndSpeech: speechProbability >= 0.5, nearToEchoDB: 0)
        for i in 0..<frameSize { output[i] = processed[i] }
        followEcho(bridging: bridging)
    }

    /// Instead of `process(mic:reference:output:)` between conversations, while nobody listens. Until the
    /// canceller's filter explains the echo (or has adapted for
    /// `EchoControlTuning.BetweenConversations.adaptAtMostMilliseconds` without getting there), the
    /// canceller, delay estimator, drift tracker and level matcher see the frame exactly as `process` would
    /// show them it; then the chain rests and only keeps the frame (`rested`, the last
    /// `EchoControlTuning.BetweenConversations.restedMilliseconds`): the next `process` adapts on the kept
    /// frames first, so a conversation meets the filter fitted to the last seconds of what plays (a filter
    /// that explains the echo stays close to it while the room does not change). The residual echo suppressor, the preprocessor and the near-end verdicts are left out
    /// (`nearEnd` says only that the far end plays); their inputs go to `lookback`, and the next `process`
    /// first runs them over it: after a stretch shorter than the lookback the suppressor goes on exactly as
    /// if it had run all along; after a longer one it starts afresh on the lookback's frames, since what it
    /// learnt before may fit neither the room nor what plays now.
    public func track(mic: UnsafeBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>) {
        precondition(mic.count == frameSize && reference.count == frameSize, "CaptureChain.track takes frames of frameSize samples")
        if rested.recorded > 0 || (!echoCancellerIdle && (filterConverged || framesAdaptedInTrack >= adaptInTrackAtMost)) {
            rested.record(mic: mic, reference: reference)
            nearEnd = NearEndActivity(farEndActive: true)
            return
        }
        adaptAndKeep(mic: mic, reference: reference)
        if !echoCancellerIdle { framesAdaptedInTrack += 1 }
    }

    /// One frame as `track` adapts on it: the canceller and what aligns it, the suppressor's inputs kept.
    private func adaptAndKeep(mic: UnsafeBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>) {
        let bridging = adapt(mic: mic, reference: reference)
        lookback.record(
            mic: UnsafeBufferPointer(alignedMic), reference: UnsafeBufferPointer(alignedRef), output: UnsafeBufferPointer(processed),
            gain: referenceLevel.gain)
        nearEnd = NearEndActivity(farEndActive: !echoCancellerIdle)
        followEcho(bridging: bridging)
    }

    /// After `track` rested: the canceller adapts on the frames it kept, oldest first. Frames before them
    /// were never shown to it: as after lost capture frames (`captureInterrupted`), the echo of the
    /// reference they carried is bridged, the drift fit starts over, and the suppressor's lookback starts
    /// after them. Mic and reference skipped the same frames, so their alignment holds (no slip check).
    private func adaptOnRested() {
        framesAdaptedInTrack = 0
        guard rested.count > 0 else { return }
        let skipped = rested.recorded - rested.count
        if skipped > 0 {
            bridgeGap()
            drift.clearHistory()
            lookback.skipped(frames: skipped)
        }
        rested.visitOldestFirst { mic, reference in adaptAndKeep(mic: mic, reference: reference) }
        rested.clear()
    }

    /// The part of a frame the canceller's state depends on: the inputs aligned, the reference matched,
    /// the slip check, the canceller (or the bridge after a gap, or nothing while the far end is silent).
    /// Leaves the canceller's output in `processed`. Returns whether the frame was bridged.
    private func adapt(mic: UnsafeBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>) -> Bool {
        writeInputs(mic: mic, reference: reference)
        readAligned()

        var loudest: Int16 = 0
        for i in 0..<frameSize { loudest = max(loudest, alignedRef[i] == .min ? .max : abs(alignedRef[i])) }
        let resumes = loudest > 2 && silentReferenceFrames > 0
        silentReferenceFrames = loudest <= 2 ? silentReferenceFrames + 1 : 0
        matchReferenceLevel(loudest: loudest)
        slipCheck.record(UnsafeBufferPointer(alignedRef))
        if resumes && slipCheckAwaitsResume {
            slipCheckAwaitsResume = false
            if filterConverged { slipCheck.arm() }
        }
        echoCancellerIdle = silentReferenceFrames > idleAfterFrames
        let bridging = framesToBridge > 0
        if bridging {
            // Echo of reference the canceller never saw: muted, not cancelled (see captureInterrupted).
            framesToBridge -= 1
            for i in 0..<frameSize { processed[i] = 0 }
            referenceActive = false
        } else if echoCancellerIdle {
            for i in 0..<frameSize { processed[i] = alignedMic[i] }
            referenceActive = false
        } else {
            if slipCheck.isArmed && farEndPlays(alignedRef),
                let slip = slipCheck.observe(echo, mic: UnsafeBufferPointer(alignedMic)), slip != 0
            {
                moveReference(by: slip)
            }
            echo.process(mic: UnsafeBufferPointer(alignedMic), reference: UnsafeBufferPointer(alignedRef), output: processed)
            updateLevels()
        }
        return bridging
    }

    /// The residual echo suppressor (rescaled first if the reference gain changed since it last ran) and
    /// the preprocessor, in place on one frame of the canceller's output.
    private func suppressAndPreprocess(
        _ frame: UnsafeMutableBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>, mic: UnsafeBufferPointer<Int16>,
        gain: Int
    ) {
        if let suppressor {
            if let held = suppressorGain, gain != held {
                // The reference comes at a new scale from this frame on.
                suppressor.rescaleReference(by: Float(gain) / Float(held))
            }
            suppressorGain = gain
            suppressor.process(frame, reference: reference, mic: mic)
            letTalkerThrough(suppressor.activity.nearEndSpeech || suppressor.hearsTalker)
        }
        preprocessor.process(frame)
        speechProbability = preprocessor.speechProbability
    }

    /// After `track`: the suppressor and the preprocessor run over the frames it kept, oldest first (their
    /// output dropped; only their state matters), so the frame that follows continues from them.
    private func catchUp() {
        guard lookback.count > 0 else { return }
        if lookback.recorded > lookback.count, let suppressor {
            // It missed more than it is shown again: start it afresh on what it is shown.
            suppressor.reset()
            suppressorGain = nil
            suppressor.missed(frames: lookback.recorded - lookback.count)
        }
        lookback.visitOldestFirst { output, reference, mic, gain in
            suppressAndPreprocess(output, reference: reference, mic: mic, gain: gain)
        }
        lookback.clear()
    }

    /// The part of a frame that follows the echo path once the canceller has run: the delay estimator, the
    /// drift tracker, the FIFO's centre.
    private func followEcho(bridging: Bool) {
        guard !echoCancellerIdle && !bridging else { return }
        if estimatorEnabled,
            let estimate = estimator.process(mic: UnsafeBufferPointer(alignedMic), reference: UnsafeBufferPointer(alignedRef))
        {
            consider(estimate)
        }
        drift.observe(
            echo,
            converged: referenceActive && echoReturnLossEnhancementDB > 6
                && 2 * framesSinceReset * frameSize > 3 * CaptureChainConfiguration.sampleRate)
        keepFIFOCentred()
        framesSinceReset += 1
    }

    /// Like `process(mic:reference:output:)`, and also resamples the output to 24 kHz into
    /// `uplink` (capacity >= `uplinkFrameSize`). Returns the number of uplink samples written.
    /// After `bypass` the first `latencySamples` of output are left out of the uplink.
    public func process(
        mic: UnsafeBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>,
        output: UnsafeMutableBufferPointer<Int16>, uplink: UnsafeMutableBufferPointer<Int16>
    ) -> Int {
        enterOutputSlots()
        process(mic: mic, reference: reference, output: output)
        let skip = leaveOutputSlots()
        return resampleForUplink(UnsafeBufferPointer(rebasing: output[skip..<frameSize]), into: uplink)
    }

    /// Like `track(mic:reference:)`, with silence in the uplink where `process` would put the output (the
    /// same number of samples, so the uplink keeps its timing and the runner's idle pre-roll ends now).
    /// Returns the number of uplink samples written.
    public func track(mic: UnsafeBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>, uplink: UnsafeMutableBufferPointer<Int16>) -> Int {
        enterOutputSlots()
        track(mic: mic, reference: reference)
        let count = frameSize - leaveOutputSlots()
        let inputRate = CaptureChainConfiguration.sampleRate, outputRate = CaptureChainConfiguration.uplinkSampleRate
        let produced = (silencedInput + count) * outputRate / inputRate - silencedInput * outputRate / inputRate
        silencedInput = (silencedInput + count) % inputRate
        uplinkSilenced = true
        for i in 0..<produced { uplink[i] = 0 }
        return produced
    }

    /// Before a frame whose output slots follow the chain's latency (`process`, `track`): after `bypass` the
    /// slots up to the switch were the mic's already.
    private func enterOutputSlots() {
        if bypassed {
            bypassed = false
            staleOutputSamples = latencySamples
            micInsideChain = 0
        }
    }

    /// After such a frame: how many of its output samples were already in the uplink (see `bypass`).
    private func leaveOutputSlots() -> Int {
        micInsideChain = min(micInsideChain + frameSize, latencySamples)
        let skip = min(staleOutputSamples, frameSize)
        staleOutputSamples -= skip
        return skip
    }

    /// The uplink resampler; after silence (`track`) it starts from a clean history, as the silence left it.
    private func resampleForUplink(_ samples: UnsafeBufferPointer<Int16>, into uplink: UnsafeMutableBufferPointer<Int16>) -> Int {
        if uplinkSilenced {
            uplinkSilenced = false
            silencedInput = 0
            uplinkResampler.reset()
        }
        return uplinkResampler.process(input: samples, output: uplink).produced
    }

    /// Instead of `process(mic:reference:output:uplink:)` while there is nothing to process (no
    /// conversation, silent reference): `mic` (`frameSize` samples) goes to the uplink as it is, through
    /// the same resampler, and nothing else runs; the chain's state, its converged filter included, is
    /// kept. The delay line then lags the mic: when processing resumes, its first `latencySamples` of
    /// output are from before the bypass (or silence) while the uplink already carries the mic up to the
    /// switch, so they are left out, and the uplink goes on from the sample after (one stream through one
    /// resampler: no gap, nothing twice). The other way round, the first bypass after processing first
    /// sends the mic still inside the chain (up to `latencySamples`, unprocessed) so the uplink does not
    /// lose it. `uplink` holds at least `maxBypassUplinkSamples`. Returns the number of uplink samples
    /// written.
    public func bypass(mic: UnsafeBufferPointer<Int16>, uplink: UnsafeMutableBufferPointer<Int16>) -> Int {
        precondition(mic.count == frameSize, "CaptureChain.bypass takes frames of frameSize samples")
        precondition(uplink.count >= maxBypassUplinkSamples, "CaptureChain.bypass needs maxBypassUplinkSamples of uplink")
        var produced = 0
        if !bypassed {
            adaptOnRested()
            let count = micInsideChain
            for i in 0..<count { pending[i] = micRing[(micWrite - count + i) & ringMask] }
            produced = resampleForUplink(UnsafeBufferPointer(rebasing: pending[0..<count]), into: uplink)
        }
        bypassed = true
        return produced
            + resampleForUplink(mic, into: UnsafeMutableBufferPointer(rebasing: uplink[produced...]))
    }

    /// The uplink capacity `bypass` may need in one call: a frame and the most the chain can hold.
    public var maxBypassUplinkSamples: Int {
        (maxDelay + 3 * frameSize) * CaptureChainConfiguration.uplinkSampleRate / CaptureChainConfiguration.sampleRate + 64
    }

    // MARK: - Steps

    private func writeInputs(mic: UnsafeBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>) {
        for i in 0..<frameSize { micRing[(micWrite + i) & ringMask] = mic[i] }
        micWrite += frameSize
        let produced = drift.resample(reference, into: resampled)
        for i in 0..<produced { refRing[(refWrite + i) & ringMask] = resampled[i] }
        refWrite += produced
    }

    private func readAligned() {
        let micStart = micWrite - frameSize - micDelay
        if fadePending {
            let oldMicStart = micWrite - frameSize - fadeFromMicDelay
            let step = 1 / Float(frameSize)
            for i in 0..<frameSize {
                let w = Float(i) * step
                let newMic = Float(micRing[(micStart + i) & ringMask]), oldMic = Float(micRing[(oldMicStart + i) & ringMask])
                let newRef = Float(refRing[(refRead + i) & ringMask]), oldRef = Float(refRing[(fadeFromRefRead + i) & ringMask])
                alignedMic[i] = Int16(w * newMic + (1 - w) * oldMic)
                alignedRef[i] = Int16(w * newRef + (1 - w) * oldRef)
            }
            fadePending = false
        } else {
            for i in 0..<frameSize {
                alignedMic[i] = micRing[(micStart + i) & ringMask]
                alignedRef[i] = refRing[(refRead + i) & ringMask]
            }
        }
        refRead += frameSize
    }

    /// Raises the aligned reference frame by `referenceLevel`'s gain, after letting it see the frame.
    private func matchReferenceLevel(loudest: Int16) {
        guard referenceLevel.maxShift > 0 else { return }
        var refEnergy: Float = 0, micEnergy: Float = 0
        for i in 0..<frameSize {
            let r = Float(alignedRef[i]), m = Float(alignedMic[i])
            refEnergy += r * r
            micEnergy += m * m
        }
        if referenceLevel.observe(referenceEnergy: refEnergy, referencePeak: loudest, micEnergy: micEnergy, frameSize: frameSize) {
            // The filter was learnt at the old scale (the suppressor follows the new one when it next runs).
            restartCanceller()
        }
        let shift = referenceLevel.shift
        guard shift > 0 else { return }
        for i in 0..<frameSize { alignedRef[i] = Int16(clamping: Int32(alignedRef[i]) << shift) }
    }

    private func updateLevels() {
        var refEnergy: Float = 0, micEnergy: Float = 0, outEnergy: Float = 0
        for i in 0..<frameSize {
            let r = Float(alignedRef[i]), m = Float(alignedMic[i]), o = Float(processed[i])
            refEnergy += r * r
            micEnergy += m * m
            outEnergy += o * o
        }
        let n = Float(frameSize)
        // Only while the far end plays.
        referenceActive = refEnergy / n > EchoControlTuning.farEndPower
        guard referenceActive else { return }
        micPower = 0.95 * micPower + 0.05 * micEnergy / n
        residualPower = 0.95 * residualPower + 0.05 * outEnergy / n
        echoReturnLossEnhancementDB = 10 * log10f((micPower + 1) / (residualPower + 1))
    }

    /// Acts on a delay estimate of the echo relative to the reference given to the canceller.
    private func consider(_ estimate: DelayEstimator.Estimate) {
        guard estimate.confidence >= 2 else {
            candidateLag = nil
            return
        }
        let lag = estimate.lagSamples
        defer { candidateLag = lag }
        guard let previous = candidateLag, abs(previous - lag) <= 8 else { return }
        let fill = refWrite - refRead
        estimatedLagMilliseconds = (lag - Double(micDelay) + Double(drift.latency + fill)) * 1000 / Double(CaptureChainConfiguration.sampleRate)
        let shift = Int(lag.rounded()) - margin
        guard shift < -margin / 2 || shift > lateTolerance else { return }
        move(by: shift)
        estimator.reset()
        candidateLag = nil
        realignmentCount += 1
        restartCanceller()
    }

    /// Capture frames were lost before the next `process` call (an overrun, a reopen): the mic that
    /// follows holds the echo of reference played during the gap, which the canceller never saw,
    /// while the FIFO still holds the reference from before it. Fed those frames, speex adapts to the
    /// mismatch (measured after a capture overrun, XrunAlignmentTests: ERLE 11 dB before, 5 dB at
    /// the lowest after). Instead the frames whose echo lies in the gap, the FIFO's delay plus the
    /// margin (and the frame the gap falls into), are muted and kept away from the canceller, the
    /// estimator and the drift tracker (lowest 10 dB). Nothing to do while the canceller is idle (the
    /// FIFO holds silence; echo without reference does not move the filter). Realtime-safe.
    /// While `track` rests, the frames kept before the gap are dropped: adapting on what follows, the
    /// canceller meets the gap as after any stretch it rested through.
    public func captureInterrupted() {
        if rested.recorded > 0 {
            rested.dropHeld()
            return
        }
        bridgeGap()
        if filterConverged { slipCheck.arm() }
    }

    /// The frames whose echo lies in a gap of the canceller's input are muted and kept from it (see
    /// `captureInterrupted`).
    private func bridgeGap() {
        guard !echoCancellerIdle else { return }
        framesToBridge = (refWrite - refRead + margin + frameSize - 1) / frameSize + 1
    }

    /// The reference tap aligned the reference afresh (`ReferenceTap.alignmentEpoch`: a new run of the
    /// playback stream): where far-end sound next resumes from silence, the slip check runs. Realtime-safe.
    public func referenceRealigned() { slipCheckAwaitsResume = true }

    /// The canceller's filter explains the echo (over 6 dB of it removed, smoothed since its last reset): worth
    /// keeping across a gap.
    private var filterConverged: Bool { echoReturnLossEnhancementDB > 6 }

    /// The aligned frame `reference` carries far-end sound (as `updateLevels` counts it).
    private func farEndPlays(_ reference: UnsafeMutableBufferPointer<Int16>) -> Bool {
        var energy: Float = 0
        for i in 0..<frameSize { energy += Float(reference[i]) * Float(reference[i]) }
        return energy / Float(frameSize) > EchoControlTuning.farEndPower
    }

    /// The reference came back `slip` whole samples off the echo after a gap (`ReferenceSlipCheck`): from
    /// this frame on it is read that much further back, so the adapted filter fits it again. The frame is
    /// read again before the canceller sees it.
    private func moveReference(by slip: Int) {
        let start = refRead - frameSize - slip
        guard refWrite - start >= frameSize else { return }
        for i in 0..<frameSize { alignedRef[i] = refRing[(start + i) & ringMask] }
        let shift = referenceLevel.shift
        if shift > 0 { for i in 0..<frameSize { alignedRef[i] = Int16(clamping: Int32(alignedRef[i]) << shift) } }
        refRead -= slip
        slipCheck.replaceLastFrame(with: UnsafeBufferPointer(alignedRef), slip: slip)
        drift.referenceMoved(by: slip)
        referenceSlips += 1
    }

    private func restartCanceller() {
        echo.reset()
        slipCheck.disarm()
        drift.clearHistory()
        micPower = 0
        residualPower = 0
        echoReturnLossEnhancementDB = 0
        framesSinceReset = 0
    }

    /// Moves the echo `shift` samples earlier in the filter: the reference read delay grows by
    /// `shift` (or the mic delay shrinks), keeping the mic delay as small as the FIFO allows.
    private func move(by shift: Int) {
        let fill = refWrite - refRead
        var newMicDelay = max(0, micDelay + slack - fill - shift)
        newMicDelay = min(newMicDelay, maxDelay)
        var newFill = fill + shift + newMicDelay - micDelay
        newFill = max(slack, min(newFill, maxDelay))
        startFade()
        micDelay = newMicDelay
        refRead = refWrite - newFill
    }

    /// Drift slowly changes the FIFO fill; shift mic and reference together (the echo stays put).
    private func keepFIFOCentred() {
        let fill = refWrite - refRead
        if fill < slack / 2 {
            let d = slack - fill
            guard micDelay + d <= maxDelay else { return }
            startFade()
            micDelay += d
            refRead -= d
        } else if micDelay > 0 && fill > 3 * slack {
            let d = min(micDelay, fill - slack)
            startFade()
            micDelay -= d
            refRead += d
        }
    }

    private func startFade() {
        fadeFromMicDelay = micDelay
        fadeFromRefRead = refRead
        fadePending = true
    }
}
