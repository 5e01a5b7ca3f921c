import AudioCore
import Glibc
import TestSupport
import Testing

@testable import AudioEngine
@testable import EchoControl

/// After a gap the devices may come back a whole sample off each other: the echo lies a sample later (or
/// earlier) than the reference says. The chain moves the reference by that much and keeps its filter
/// (`ReferenceSlipCheck`) instead of letting speexdsp learn the echo path again. The reference tap tells it
/// where it aligned the reference afresh (`CaptureChain.referenceRealigned`); the check runs where far-end
/// sound next resumes.
@Suite struct CaptureChainReferenceSlipTests {
    static let rate = 16000

    /// A speech-like far end (syllables at 3.1 Hz, digitally silent between them) and its echo through the
    /// test room, `slip` samples later from `slipAt` on; the reference as played.
    func scene(seconds: Double, slip: Int, slipAt: Int) -> (mic: [Int16], reference: [Int16]) {
        let n = Int(seconds * Double(Self.rate))
        let far = CaptureChainTestSignals.farEnd(n, seed: 5)
        let h = CaptureChainTestSignals.room(400)
        var mic = [Int16](repeating: 0, count: n), reference = [Int16](repeating: 0, count: n)
        for i in 0..<n {
            let j = i - (i >= slipAt ? slip : 0)
            var e: Float = 0
            for k in 20..<h.count where j - k >= 0 { e += h[k] * far[j - k] }
            mic[i] = CaptureChainTestSignals.clip(e)
            reference[i] = CaptureChainTestSignals.clip(far[i])
        }
        return (mic, reference)
    }

    /// Runs the scene through `chain` frame by frame; returns the canceller's echo return loss enhancement
    /// after each frame (`CaptureChain.echoReturnLossEnhancementDB`, the linear stage's).
    func run(_ chain: CaptureChain, _ scene: (mic: [Int16], reference: [Int16]), realignedAt: Int) -> [Float] {
        let f = chain.frameSize
        var out = [Int16](repeating: 0, count: f)
        var erle: [Float] = []
        scene.mic.withUnsafeBufferPointer { m in
            scene.reference.withUnsafeBufferPointer { r in
                out.withUnsafeMutableBufferPointer { o in
                    for s in stride(from: 0, to: m.count / f * f, by: f) {
                        if s / f == realignedAt / f { chain.referenceRealigned() }
                        chain.process(
                            mic: UnsafeBufferPointer(rebasing: m[s..<s + f]), reference: UnsafeBufferPointer(rebasing: r[s..<s + f]),
                            output: o)
                        erle.append(chain.echoReturnLossEnhancementDB)
                    }
                }
            }
        }
        return erle
    }

    @Test(arguments: [-4, -1, 0, 1, 2, 3, 4])
    func theFilterIsKeptWhenTheEchoComesBackShifted(_ slip: Int) throws {
        // The shift falls in the middle of the silent stretch after the 11th syllable, 3.5 s in, where the tap
        // says it aligned afresh.
        let slipAt = Int(10.75 / 3.1 * Double(Self.rate))
        let s = scene(seconds: 6, slip: slip, slipAt: slipAt)
        let chain = try CaptureChain()
        let erle = run(chain, s, realignedAt: slipAt)
        let frame = slipAt / chain.frameSize
        let before = erle[frame - 1]
        let lowest = erle[frame..<(frame + Self.rate / chain.frameSize)].min() ?? 0
        print("[ReferenceSlip] slip \(slip): \(chain.referenceSlips) moves; ERLE \(before) dB before, lowest \(lowest) dB in the 1 s after")
        #expect(before > 10, "the canceller had converged: \(before) dB")
        #expect(chain.referenceSlips == (slip == 0 ? 0 : 1))
        // Without the move: 23.6 dB falls to 7.5 (one sample) or 5.0 (two) and stays there for the second.
        #expect(lowest > before - 3, "ERLE fell from \(before) to \(lowest) dB")
    }

    /// Through the driver, period by period as `rt:capture` runs it: a change of the tap's alignment epoch
    /// arms the check; without one the slip is not looked for and speexdsp relearns.
    @Test(arguments: [true, false])
    func theDriverArmsTheCheckWhereTheTapAlignedAfresh(_ tapRealigned: Bool) throws {
        let slipAt = Int(10.75 / 3.1 * Double(Self.rate))
        let s = scene(seconds: 6, slip: 1, slipAt: slipAt)
        let chain = try CaptureChain()
        let driver = try CaptureChainDriver(
            chain: chain, uplink: SPSCRing(capacity: 1 << 17, zero: 0), captureRate: Self.rate,
            maxPeriodFrames: 160)
        driver.uplinkActive.store(true, ordering: .relaxed)
        var before: Float = 0, lowest = Float.infinity
        s.mic.withUnsafeBufferPointer { m in
            s.reference.withUnsafeBufferPointer { r in
                for p in 0..<(m.count / 160) {
                    let samples = (p * 160)..<((p + 1) * 160)
                    let epoch = tapRealigned && samples.lowerBound >= slipAt ? 1 : 0
                    driver.process(
                        mic: UnsafeBufferPointer(rebasing: m[samples]), reference: UnsafeBufferPointer(rebasing: r[samples]),
                        streamRun: 0, referenceEpoch: epoch)
                    if samples.upperBound <= slipAt { before = chain.echoReturnLossEnhancementDB }
                    if samples.lowerBound >= slipAt && samples.lowerBound < slipAt + Self.rate {
                        lowest = min(lowest, chain.echoReturnLossEnhancementDB)
                    }
                }
            }
        }
        print(
            "[ReferenceSlip] driver, tap realigned \(tapRealigned): \(chain.referenceSlips) moves; ERLE \(before) dB before, "
                + "lowest \(lowest) dB in the 1 s after")
        #expect(chain.referenceSlips == (tapRealigned ? 1 : 0))
        if tapRealigned {
            #expect(lowest > before - 3, "ERLE fell from \(before) to \(lowest) dB")
        } else {
            #expect(lowest < before - 10, "without the epoch the slip is not looked for: ERLE \(before) -> \(lowest) dB")
        }
    }
}
