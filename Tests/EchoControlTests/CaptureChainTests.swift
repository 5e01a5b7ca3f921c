import Glibc
import TestSupport
import Testing

@testable import EchoControl

private func run(_ chain: CaptureChain, mic: [Int16], reference: [Int16]) -> [Int16] {
    let f = chain.frameSize
    var out = [Int16](repeating: 0, count: mic.count / f * f)
    mic.withUnsafeBufferPointer { m in
        reference.withUnsafeBufferPointer { r in
            out.withUnsafeMutableBufferPointer { o in
                for start in stride(from: 0, to: o.count, by: f) {
                    chain.process(
                        mic: UnsafeBufferPointer(rebasing: m[start..<start + f]), reference: UnsafeBufferPointer(rebasing: r[start..<start + f]),
                        output: UnsafeMutableBufferPointer(rebasing: o[start..<start + f]))
                }
            }
        }
    }
    return out
}

private func erle(_ mic: [Int16], _ out: [Int16], from: Int, to: Int, latency: Int) -> Double {
    10 * log10(CaptureChainTestSignals.energy(mic[from..<to]) / max(1, CaptureChainTestSignals.energy(out[(from + latency)..<(to + latency)])))
}

@Test func configurationDefaultsAndValidation() {
    let c = CaptureChainConfiguration()
    #expect(c.frameSize == 256 && c.filterLength == 3072 && c.uplinkFrameSize == 384)
    #expect(c.problems.isEmpty)
    var bad = c
    bad.frameMs = 7
    bad.echoSuppressDB = 3
    #expect(bad.problems.count == 2)
    #expect(throws: CaptureChainError.self) { try CaptureChain(configuration: bad) }
}

@Test func chainCancelsAlignedEcho() throws {
    let scene = CaptureChainTestSignals.scene(seconds: 8, echoDelay: 0, ppm: 0, nearEnd: false)
    let chain = try CaptureChain()
    let out = run(chain, mic: scene.mic, reference: scene.reference)
    let e = erle(scene.mic, out, from: 16000 * 5, to: 16000 * 7, latency: chain.latencySamples)
    #expect(e > 25, "ERLE \(e) dB")
    #expect(chain.realignmentCount == 0)
    #expect(chain.echoReturnLossEnhancementDB > 15)
}

@Test func delayEstimatorFinds150msExtraLag() throws {
    // Echo 150 ms later than the nominally aligned reference.
    let scene = CaptureChainTestSignals.scene(seconds: 8, echoDelay: 2400, ppm: 0, nearEnd: false)
    let chain = try CaptureChain()
    let out = run(chain, mic: scene.mic, reference: scene.reference)
    #expect(chain.realignmentCount == 1)
    // 2400 samples of extra lag + the room's 20-sample direct path = 151.25 ms.
    #expect(abs(chain.estimatedLagMilliseconds - 151.25) < 1.5, "lag \(chain.estimatedLagMilliseconds) ms")
    let e = erle(scene.mic, out, from: 16000 * 6, to: 16000 * 7, latency: chain.latencySamples)
    #expect(e > 20, "ERLE \(e) dB")
}

@Test func delayEstimatorFindsReferenceLaggingTheEcho() {
    let scene = CaptureChainTestSignals.scene(seconds: 4, echoDelay: -2400, ppm: 0, nearEnd: false)
    let est = DelayEstimator(sampleRate: 16000, maxLagSamples: 8000)
    var last: DelayEstimator.Estimate?
    scene.mic.withUnsafeBufferPointer { m in
        scene.reference.withUnsafeBufferPointer { r in
            for s in stride(from: 0, to: m.count - 256, by: 256) {
                last =
                    est.process(mic: UnsafeBufferPointer(rebasing: m[s..<s + 256]), reference: UnsafeBufferPointer(rebasing: r[s..<s + 256])) ?? last
            }
        }
    }
    #expect(est.analyses >= 3)
    #expect(abs((last?.lagSamples ?? 0) - (-2380)) < 8, "lag \(String(describing: last))")
    #expect((last?.confidence ?? 0) > 2)
}

@Test func driftCompensationRecoversUnder50ppm() throws {
    let scene = CaptureChainTestSignals.scene(seconds: 14, echoDelay: 0, ppm: 50, nearEnd: false)
    // The linear filter's own work: no suppression after it, which silences what a drifting filter leaves.
    var on = CaptureChainConfiguration()
    on.residualEchoSuppressor = false
    on.echoSuppressDB = 0
    on.echoSuppressActiveDB = 0
    var off = on
    off.driftCompensation = false
    let plain = try CaptureChain(configuration: off)
    let outPlain = run(plain, mic: scene.mic, reference: scene.reference)
    let chain = try CaptureChain(configuration: on)
    let out = run(chain, mic: scene.mic, reference: scene.reference)
    let from = 16000 * 11, to = 16000 * 13
    let compensated = erle(scene.mic, out, from: from, to: to, latency: chain.latencySamples)
    let uncompensated = erle(scene.mic, outPlain, from: from, to: to, latency: plain.latencySamples)
    #expect(abs(chain.estimatedDriftPPM - 50) < 10, "drift \(chain.estimatedDriftPPM) ppm")
    #expect(compensated > uncompensated + 3, "ERLE \(compensated) dB vs \(uncompensated) dB without compensation")
}

@Test func uplinkIs24kHz() throws {
    let chain = try CaptureChain()
    var mic = [Int16](repeating: 100, count: 256), ref = [Int16](repeating: 0, count: 256)
    var out = [Int16](repeating: 0, count: 256), up = [Int16](repeating: 0, count: 512)
    var total = 0
    for _ in 0..<10 {
        total += mic.withUnsafeMutableBufferPointer { m in
            ref.withUnsafeMutableBufferPointer { r in
                out.withUnsafeMutableBufferPointer { o in
                    up.withUnsafeMutableBufferPointer {
                        chain.process(mic: UnsafeBufferPointer(m), reference: UnsafeBufferPointer(r), output: o, uplink: $0)
                    }
                }
            }
        }
    }
    #expect(total == 3840)
}

/// speexdsp's filter is a whole number of frames, so with a frame the tail does not divide (10 or 20 ms
/// against 192 ms, or 16 ms against 200 ms) its impulse response is longer than the tail. The drift
/// tracker copies that response every 8 converged frames; it once sized its buffer by the tail, and
/// speexdsp wrote past it (`frame_ms = 10` aborted `jarvis-voice dsp` with glibc's "free(): invalid next
/// size" when the chain was released).
@Test(arguments: [(10, 192), (20, 192), (16, 200)])
func frameLengthsThatDoNotDivideTheTailCancelAndTrackDrift(frameMilliseconds: Int, tailMilliseconds: Int) throws {
    let scene = CaptureChainTestSignals.scene(seconds: 14, echoDelay: 0, ppm: 50, nearEnd: false)
    var configuration = CaptureChainConfiguration()
    configuration.frameMs = frameMilliseconds
    configuration.echoTailMs = tailMilliseconds
    let chain = try CaptureChain(configuration: configuration)
    #expect(chain.echo.impulseResponseLength % chain.frameSize == 0)
    #expect(chain.echo.impulseResponseLength >= configuration.filterLength)
    let out = run(chain, mic: scene.mic, reference: scene.reference)
    let e = erle(scene.mic, out, from: 16000 * 11, to: 16000 * 13, latency: chain.latencySamples)
    #expect(e > 20, "ERLE \(e) dB")
    #expect(abs(chain.estimatedDriftPPM - 50) < 10, "drift \(chain.estimatedDriftPPM) ppm")
}
