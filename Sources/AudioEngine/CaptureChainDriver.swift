import AudioCore
import EchoControl
import SpeexDSP
import Synchronization

/// The per-period work of `rt:capture`: brings mic and reference to the processing rate, cuts them
/// into the chain's frames, runs the capture chain, and pushes the 24 kHz result into the uplink ring.
///
/// Work only when there is work (`CaptureSchedule` decides per frame): while no conversation captures
/// (`uplinkActive` false) and the reference has been silent for the echo tail, the chain is not run at all
/// (its canceller keeps its converged filter for when sound resumes); the mic goes through the chain's
/// 16 → 24 kHz resampler alone into the uplink ring (`CaptureChain.bypass`), so the idle pre-roll stays
/// filled and the uplink is one stream across the switch (`IdleCaptureGate` decides). While the far end
/// plays and no conversation runs (radio), the chain only keeps its canceller ready (`CaptureChain.track`:
/// it adapts until it explains the echo, then rests on the last seconds) and the uplink carries silence; a press of the talk button (`talkButtonPresses`) or a conversation brings the
/// whole chain back in the same frame. `stats` publishes the near-end speech verdict for the barge-in
/// decision: the chain's detector (`CaptureChain.nearEnd`) while the chain runs, the gate's mic-level rule
/// while it is skipped (the far end is silent then), none while it only tracks (nobody listens).
///
/// All buffers are allocated in `init`; `process` never allocates, locks or logs. Statistics for the
/// journal are published through atomics, in tenths, once per frame.
final class CaptureChainDriver: @unchecked Sendable {
    let chain: CaptureChain
    let uplink: SPSCRing<Int16>
    private let micConverter: Resampler?
    private let referenceConverter: Resampler?
    private let micFrame: UnsafeMutableBufferPointer<Int16>
    private let referenceFrame: UnsafeMutableBufferPointer<Int16>
    private let output: UnsafeMutableBufferPointer<Int16>
    private let uplinkFrame: UnsafeMutableBufferPointer<Int16>
    private let convertedMic: UnsafeMutableBufferPointer<Int16>
    private let convertedReference: UnsafeMutableBufferPointer<Int16>
    private let silence: UnsafeMutableBufferPointer<Int16>
    private let maxPeriodFrames: Int
    private var filled = 0
    private var lastStreamRun: Int?
    /// Frames were lost since the chain last ran: tell it before its next frame (a gap while the
    /// chain is skipped needs nothing: its FIFO holds silence then).
    private var interruptionPending = false
    private var lastReferenceEpoch: Int?
    private var realignmentPending = false
    private var gate: IdleCaptureGate
    private var schedule: CaptureSchedule
    /// A conversation captures the uplink: the chain must run (set from any thread).
    let uplinkActive = Atomic<Bool>(false)
    /// A conversation runs (the engine is not idle), with or without the mic: the chain runs while the far
    /// end plays (set from any thread).
    let conversationActive = Atomic<Bool>(false)
    /// Times the talk button went down (any thread adds one): the chain runs in full for `wakeFrames` after.
    let talkButtonPresses = Atomic<Int>(0)

    let stats: CaptureStatistics

    /// `captureRate`: the device's rate; `maxPeriodFrames` sizes the scratch buffers (a longer period,
    /// which a device may grant, is processed in pieces of that size). `pressWakeMilliseconds`: how long the
    /// whole chain runs after a press of the talk button while no conversation does.
    init(
        chain: CaptureChain, uplink: SPSCRing<Int16>, captureRate: Int, maxPeriodFrames: Int, pressWakeMilliseconds: Int = 1_500
    ) throws(SpeexDSPError) {
        self.maxPeriodFrames = max(1, maxPeriodFrames)
        self.chain = chain
        self.uplink = uplink
        let rate = CaptureChainConfiguration.sampleRate
        if captureRate != rate {
            // Same settings for both, so both carry the same filter delay and stay aligned.
            micConverter = try Resampler(inputRate: captureRate, outputRate: rate, quality: 5)
            referenceConverter = try Resampler(inputRate: captureRate, outputRate: rate, quality: 5)
        } else {
            micConverter = nil
            referenceConverter = nil
        }
        func buffer(_ count: Int) -> UnsafeMutableBufferPointer<Int16> {
            let b = UnsafeMutableBufferPointer<Int16>.allocate(capacity: count)
            b.initialize(repeating: 0)
            return b
        }
        let converted = maxPeriodFrames * rate / captureRate + 16
        micFrame = buffer(chain.frameSize)
        referenceFrame = buffer(chain.frameSize)
        output = buffer(chain.frameSize)
        uplinkFrame = buffer(max(chain.uplinkFrameSize + 64, chain.maxBypassUplinkSamples))
        convertedMic = buffer(converted)
        convertedReference = buffer(converted)
        silence = buffer(max(converted, maxPeriodFrames))
        gate = IdleCaptureGate(frameMilliseconds: chain.configuration.frameMs)
        schedule = CaptureSchedule(wakeFrames: (pressWakeMilliseconds + chain.configuration.frameMs - 1) / chain.configuration.frameMs)
        stats = CaptureStatistics(frameMilliseconds: chain.configuration.frameMs)
    }

    deinit {
        for b in [micFrame, referenceFrame, output, uplinkFrame, convertedMic, convertedReference, silence] { b.deallocate() }
    }

    /// rt:capture, once per period. `reference` nil: no reference configured (silence is used, the
    /// canceller then passes the mic through). `streamRun` (the capture loop's) changes after lost
    /// frames; the chain is told, so the gap does not cost it its converged filter. `referenceEpoch` (the
    /// reference tap's `alignmentEpoch`) changes where the tap aligned the reference afresh; the chain is
    /// told, so a whole-sample slip there does not cost it its filter either.
    func process(
        mic: UnsafeBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>?, streamRun: Int,
        referenceEpoch: Int = 0
    ) {
        if let last = lastStreamRun, last != streamRun { interruptionPending = true }
        lastStreamRun = streamRun
        if let last = lastReferenceEpoch, last != referenceEpoch { realignmentPending = true }
        lastReferenceEpoch = referenceEpoch
        var start = 0
        while start < mic.count {
            let end = min(mic.count, start + maxPeriodFrames)
            let micPiece = UnsafeBufferPointer(rebasing: mic[start..<end])
            let referencePiece =
                reference.map { UnsafeBufferPointer(rebasing: $0[min(start, $0.count)..<min(end, $0.count)]) }
                ?? UnsafeBufferPointer(rebasing: silence[0..<(end - start)])
            process(mic: micPiece, reference: referencePiece)
            start = end
        }
    }

    /// One piece of at most `maxPeriodFrames` frames.
    private func process(mic: UnsafeBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>) {
        guard let micConverter, let referenceConverter else {
            append(mic: mic, reference: reference)
            return
        }
        let m = micConverter.process(input: mic, output: convertedMic)
        let r = referenceConverter.process(input: reference, output: convertedReference)
        let n = min(m.produced, r.produced)
        append(
            mic: UnsafeBufferPointer(rebasing: convertedMic[0..<n]),
            reference: UnsafeBufferPointer(rebasing: convertedReference[0..<n]))
    }

    private func append(mic: UnsafeBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>) {
        var offset = 0
        let count = min(mic.count, reference.count)
        while offset < count {
            let take = min(chain.frameSize - filled, count - offset)
            for i in 0..<take {
                micFrame[filled + i] = mic[offset + i]
                referenceFrame[filled + i] = reference[offset + i]
            }
            filled += take
            offset += take
            if filled == chain.frameSize {
                runFrame()
                filled = 0
            }
        }
    }

    private func runFrame() {
        let mic = UnsafeBufferPointer(micFrame), reference = UnsafeBufferPointer(referenceFrame)
        gate.observe(reference: reference, gain: chain.referenceGain, mayBeRaised: chain.referenceMayBeRaised)
        let work = schedule.work(
            listening: uplinkActive.load(ordering: .relaxed), conversation: conversationActive.load(ordering: .relaxed),
            farEndActive: gate.farEndActive, presses: talkButtonPresses.load(ordering: .relaxed))
        if interruptionPending {
            interruptionPending = false
            if work != .bypass { chain.captureInterrupted() }
        }
        if realignmentPending {
            realignmentPending = false
            chain.referenceRealigned()
        }
        let produced: Int
        var speech = false, possible = false, farEnd = false
        switch work {
        case .bypass:
            produced = chain.bypass(mic: mic, uplink: uplinkFrame)
            speech = gate.speech(inMic: mic)
            possible = speech
        case .track:
            produced = chain.track(mic: mic, reference: reference, uplink: uplinkFrame)
            farEnd = chain.nearEnd.farEndActive
            stats.publish(chain)
        case .process:
            produced = chain.process(mic: mic, reference: reference, output: output, uplink: uplinkFrame)
            speech = chain.nearEnd.nearEndSpeech
            possible = chain.nearEnd.possibleNearEndSpeech
            farEnd = chain.nearEnd.farEndActive
            stats.publish(chain)
        }
        let written = uplink.write(UnsafeBufferPointer(rebasing: uplinkFrame[0..<produced]))
        if written < produced { stats.uplinkOverflows.add(produced - written, ordering: .relaxed) }
        stats.publishFrame(
            nearEndSpeech: speech, possibleNearEndSpeech: possible, farEndActive: farEnd, bypassed: work == .bypass,
            tracked: work == .track)
    }
}
