import AudioCore
import SpeexDSP
import Synchronization

/// The per-period work of `rt:capture`: brings mic and reference to the processing rate, cuts them
/// into the chain's frames, runs the capture chain, and pushes the 24 kHz result into the uplink ring.
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
    private var filled = 0

    let stats = CaptureStatistics()

    /// `captureRate`: the device's rate; periods of up to `maxPeriodFrames` frames.
    init(chain: CaptureChain, uplink: SPSCRing<Int16>, captureRate: Int, maxPeriodFrames: Int) throws(SpeexDSPError) {
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
        uplinkFrame = buffer(chain.uplinkFrameSize + 16)
        convertedMic = buffer(converted)
        convertedReference = buffer(converted)
        silence = buffer(max(converted, maxPeriodFrames))
    }

    deinit {
        for b in [micFrame, referenceFrame, output, uplinkFrame, convertedMic, convertedReference, silence] { b.deallocate() }
    }

    /// rt:capture, once per period. `reference` nil: no reference configured (silence is used, the
    /// canceller then passes the mic through).
    func process(mic: UnsafeBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>?) {
        let reference = reference ?? UnsafeBufferPointer(rebasing: silence[0..<min(mic.count, silence.count)])
        guard let micConverter, let referenceConverter else {
            append(mic: mic, reference: reference)
            return
        }
        let m = micConverter.process(input: mic, output: convertedMic)
        let r = referenceConverter.process(input: reference, output: convertedReference)
        let n = min(m.produced, r.produced)
        append(mic: UnsafeBufferPointer(rebasing: convertedMic[0..<n]),
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
        let produced = chain.process(
            mic: UnsafeBufferPointer(micFrame), reference: UnsafeBufferPointer(referenceFrame),
            output: output, uplink: uplinkFrame)
        let written = uplink.write(UnsafeBufferPointer(rebasing: uplinkFrame[0..<produced]))
        if written < produced { stats.uplinkOverflows.add(produced - written, ordering: .relaxed) }
        stats.publish(chain)
    }
}

/// What the capture chain reports, readable from any thread (values in tenths).
public final class CaptureStatistics: Sendable {
    let lagTenthsMs = Atomic<Int>(0)
    let driftTenthsPPM = Atomic<Int>(0)
    let erleTenthsDB = Atomic<Int>(0)
    let speechPercent = Atomic<Int>(0)
    let realignments = Atomic<Int>(0)
    let uplinkOverflows = Atomic<Int>(0)

    func publish(_ chain: CaptureChain) {
        lagTenthsMs.store(Int((chain.estimatedLagMilliseconds * 10).rounded()), ordering: .relaxed)
        driftTenthsPPM.store(Int((chain.estimatedDriftPPM * 10).rounded()), ordering: .relaxed)
        erleTenthsDB.store(Int((chain.echoReturnLossEnhancementDB * 10).rounded()), ordering: .relaxed)
        speechPercent.store(Int((chain.speechProbability * 100).rounded()), ordering: .relaxed)
        realignments.store(chain.realignmentCount, ordering: .relaxed)
    }

    /// Estimated extra lag of the reference behind the echo, in milliseconds.
    public var lagMilliseconds: Double { Double(lagTenthsMs.load(ordering: .relaxed)) / 10 }
    /// Estimated clock drift between the echo path and the reference, in ppm.
    public var driftPPM: Double { Double(driftTenthsPPM.load(ordering: .relaxed)) / 10 }
    /// The echo canceller's current echo reduction, in dB.
    public var echoReductionDB: Double { Double(erleTenthsDB.load(ordering: .relaxed)) / 10 }
    /// The preprocessor's speech probability, 0...1.
    public var speechProbability: Double { Double(speechPercent.load(ordering: .relaxed)) / 100 }
    public var realignmentCount: Int { realignments.load(ordering: .relaxed) }
    /// Uplink samples dropped because nobody drained the ring.
    public var uplinkOverflowSamples: Int { uplinkOverflows.load(ordering: .relaxed) }
}
