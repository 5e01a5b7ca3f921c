import Glibc
import TestSupport
import Testing

@testable import EchoControl

/// The chain's scene with its reference 20 dB down, as a hardware loopback channel gives it: the echo
/// at the mic is louder than the reference.
private func hotMicScene(seconds: Double) -> (mic: [Int16], reference: [Int16]) {
    let scene = CaptureChainTestSignals.scene(seconds: seconds, echoDelay: 0, ppm: 0, nearEnd: false)
    return (scene.mic, scene.reference.map { Int16((Float($0) / 10).rounded()) })
}

/// Runs `chain` over the scene; returns the canceller's echo reduction (dB) at each second and whether
/// the near-end detector ever heard a talker.
private func run(_ chain: CaptureChain, _ scene: (mic: [Int16], reference: [Int16])) -> (erle: [Float], talker: Bool) {
    let f = chain.frameSize
    var out = [Int16](repeating: 0, count: f)
    var erle: [Float] = []
    var talker = false
    for start in stride(from: 0, to: scene.mic.count / f * f, by: f) {
        scene.mic.withUnsafeBufferPointer { m in
            scene.reference.withUnsafeBufferPointer { r in
                out.withUnsafeMutableBufferPointer { o in
                    chain.process(
                        mic: UnsafeBufferPointer(rebasing: m[start..<start + f]), reference: UnsafeBufferPointer(rebasing: r[start..<start + f]),
                        output: o)
                }
            }
        }
        talker = talker || chain.nearEnd.nearEndSpeech
        if (start / f + 1) % (16000 / f) == 0 { erle.append(chain.echoReturnLossEnhancementDB) }
    }
    return (erle, talker)
}

@Test func aReferenceFarBelowItsEchoIsRaisedAndTheCancellerAdapts() throws {
    let scene = hotMicScene(seconds: 10)
    let matched = try CaptureChain()
    var plain = CaptureChainConfiguration()
    plain.matchReferenceLevel = false
    let unmatched = try CaptureChain(configuration: plain)
    let with = run(matched, scene), without = run(unmatched, scene)
    print(
        "linear echo reduction per second, matched \(matched.referenceGain)x: \(with.erle.map { Int($0.rounded()) }), "
            + "unmatched: \(without.erle.map { Int($0.rounded()) })")
    #expect(matched.referenceGain == 8)
    #expect(unmatched.referenceGain == 1)
    #expect(with.erle.last! > 20)
    #expect(without.erle.last! < 10)
    // The change of gain restarts the canceller; the echo is not taken for a talker meanwhile.
    #expect(!with.talker)
}

@Test func theSuppressorsPredictedEchoFollowsARescaledReference() {
    // Far end alone: a steady residual 10 dB under a noise reference; then the reference comes 8x
    // quieter, as after a frame the matcher would have clipped, while the echo stays. Told of it, the
    // suppressor keeps suppressing the residual as before; untold, it predicts 18 dB less echo and lets
    // the residual through, as it would a talker. Compared: the median frame level, so a moment the
    // steady suppression lets through does not count.
    func outputRise(rescaled: Bool) -> Double {
        let suppressor = ResidualEchoSuppressor(frameSize: 256, sampleRate: 16000, tailSamples: 3072)
        var reference = CaptureChainTestSignals.White(seed: 3), residual = CaptureChainTestSignals.White(seed: 4)
        var ref = [Int16](repeating: 0, count: 256), out = ref, mic = ref
        var before: [Double] = [], after: [Double] = []
        for frame in 0..<260 {
            if frame == 200 && rescaled { suppressor.rescaleReference(by: 1 / 8) }
            for i in 0..<256 {
                ref[i] = reference.sample(rms: frame >= 200 ? 1000 : 8000)
                out[i] = residual.sample(rms: 2500)
                mic[i] = out[i]
            }
            out.withUnsafeMutableBufferPointer { o in
                ref.withUnsafeBufferPointer { r in
                    mic.withUnsafeBufferPointer { m in
                        suppressor.process(o, reference: r, mic: m)
                    }
                }
            }
            let level = 10 * log10(CaptureChainTestSignals.energy(out[...]) + 1)
            if (150..<200).contains(frame) { before.append(level) }
            if (210..<260).contains(frame) { after.append(level) }
        }
        return after.sorted()[after.count / 2] - before.sorted()[before.count / 2]
    }
    let told = outputRise(rescaled: true), untold = outputRise(rescaled: false)
    print("output after the change: told \(told) dB, untold \(untold) dB")
    #expect(abs(told) < 2, "output \(told) dB after the change")
    #expect(untold > 10, "output \(untold) dB after the change")
}
