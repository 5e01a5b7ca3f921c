import Glibc

/// The interim near-end speech rule of `CaptureChainDriver` (until the chain's own double-talk detector
/// is wired): per chain frame, the canceller's output against the residual echo predicted from the
/// reference.
///
/// - Far end silent (the reference envelope, peak-held over `holdFrames`, below about -50 dBFS): near-end
///   speech is output above `quietThreshold` (-40 dBFS).
/// - Far end playing: the output must exceed `margin` × the learned residual coupling × the reference
///   envelope, and `floorThreshold`. The coupling is the peak of the residual-to-reference ratio, decaying
///   8 dB/s, learnt only in frames without near-end speech: the residual of a non-linear echo (and of a
///   canceller still converging) sets it, a talker does not.
///
/// `onsetFrames` consecutive frames start speech; it ends after `hangoverFrames` without. Allocation-free.
struct EnergyNearEndRule {
    let onsetFrames: Int
    let hangoverFrames: Int
    let holdDecay: Float
    let margin: Float = 10            // 10 dB over the predicted residual
    let couplingDecay: Float          // the residual coupling's peak falls 8 dB/s
    let farEndThreshold: Float = 10_000  // reference power, about -50 dBFS RMS
    let quietThreshold: Float = 107_000  // -40 dBFS RMS
    let floorThreshold: Float = 34_000   // -45 dBFS RMS

    private var referenceEnvelope: Float = 0
    private var coupling: Float = 1
    private var loudRun = 0
    private var quietRun = 0
    private(set) var nearEndSpeech = false
    private(set) var farEndActive = false

    /// `frameMilliseconds`: the chain's frame length.
    init(frameMilliseconds: Int) {
        let ms = max(1, frameMilliseconds)
        onsetFrames = max(1, (32 + ms - 1) / ms)
        hangoverFrames = max(1, 200 / ms)
        // Peak hold of the reference: falls 60 dB in 300 ms (room decay + lag).
        holdDecay = powf(10, -6 * Float(ms) / 300)
        couplingDecay = powf(10, -0.8 * Float(ms) / 1000)
    }

    /// First, per frame: the reference the frame's echo comes from.
    mutating func observe(reference: UnsafeBufferPointer<Int16>) {
        referenceEnvelope = max(Self.power(reference), referenceEnvelope * holdDecay)
        farEndActive = referenceEnvelope > farEndThreshold
    }

    /// Then: the frame after echo cancellation. Returns the debounced verdict.
    mutating func process(output: UnsafeBufferPointer<Int16>) -> Bool {
        let outputPower = Self.power(output)
        let loud: Bool
        if farEndActive {
            let ratio = outputPower / referenceEnvelope
            loud = outputPower > floorThreshold && ratio > margin * coupling
            if !loud && !nearEndSpeech { coupling = max(ratio, coupling * couplingDecay) }
        } else {
            loud = outputPower > quietThreshold
        }
        if loud {
            loudRun += 1
            quietRun = 0
            if loudRun >= onsetFrames { nearEndSpeech = true }
        } else {
            loudRun = 0
            quietRun += 1
            if quietRun >= hangoverFrames { nearEndSpeech = false }
        }
        return nearEndSpeech
    }

    private static func power(_ samples: UnsafeBufferPointer<Int16>) -> Float {
        var energy: Float = 0
        for sample in samples {
            let x = Float(sample)
            energy += x * x
        }
        return energy / Float(max(1, samples.count))
    }
}
