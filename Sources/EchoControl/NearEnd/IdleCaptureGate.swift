import Glibc

/// Decides, per chain frame, whether `CaptureChainDriver` may skip the capture chain, and what near-end
/// speech means while it does.
///
/// - Far end: the reference's power, peak-held and falling 60 dB in 300 ms (room decay and the lag the
///   chain would still compensate), above about -50 dBFS as the chain scales it (`CaptureChain.referenceGain`)
///   means echo is expected: the chain must run. A loopback channel 20 dB under its echo (the ReSpeaker's)
///   carries quiet music below -50 dBFS while the mic hears it at -36; judged unscaled, the idle pre-roll
///   took that echo uncancelled. Until the chain has raised such a reference, anything above -60 dBFS
///   counts, or the chain would never run to learn how much to raise it (a quiet voice through the
///   loopback stayed under -50 dBFS for good). A reference under -60 dBFS as it comes carries no sound however much it
///   is raised (`EchoControlTuning.LevelMatching.soundPower`): an analog loopback's hiss, raised 16×, would keep the
///   chain running while nothing plays.
/// - While the chain is skipped the far end is silent, so any sound is near-end: speech is `onsetFrames`
///   frames (≥ 32 ms) of mic above -40 dBFS, and ends after 200 ms below.
///
/// Allocation-free.
public struct IdleCaptureGate {
    let onsetFrames: Int
    let hangoverFrames: Int
    let holdDecay: Float
    typealias Tuning = EchoControlTuning.IdleGate

    private var referenceEnvelope: Float = 0
    private var loudRun = 0
    private var quietRun = 0
    public private(set) var nearEndSpeech = false
    public private(set) var farEndActive = false

    /// `frameMilliseconds`: the chain's frame length.
    public init(frameMilliseconds: Int) {
        let ms = max(1, frameMilliseconds)
        onsetFrames = max(1, (Tuning.onsetMilliseconds + ms - 1) / ms)
        hangoverFrames = max(1, Tuning.hangoverMilliseconds / ms)
        holdDecay = powf(10, -Tuning.holdFallBels * Float(ms) / Tuning.holdFallMilliseconds)
    }

    /// Every frame: the reference the frame's echo comes from, the factor the chain raises it by, and
    /// whether the chain may still raise it (its level not learnt yet: the chain must run to learn it).
    public mutating func observe(reference: UnsafeBufferPointer<Int16>, gain: Int, mayBeRaised: Bool = false) {
        referenceEnvelope = max(Self.power(reference), referenceEnvelope * holdDecay)
        let scale = Float(gain)
        farEndActive =
            referenceEnvelope > EchoControlTuning.LevelMatching.soundPower
            && (mayBeRaised || referenceEnvelope * scale * scale > EchoControlTuning.farEndPower)
    }

    /// While the chain is skipped: the raw mic frame. Returns the debounced near-end verdict.
    public mutating func speech(inMic mic: UnsafeBufferPointer<Int16>) -> Bool {
        if Self.power(mic) > Tuning.speechPower {
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
