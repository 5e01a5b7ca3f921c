import Glibc
import Testing

@testable import SpeexDSP

private func noise(_ n: Int, seed: UInt64, amplitude: Float = 8000) -> [Int16] {
    var s = seed
    return (0..<n).map { _ in
        s = s &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let u = Float(Int64(bitPattern: s >> 11) % 2001 - 1000) / 1000
        return Int16(u * amplitude)
    }
}

private func energy(_ x: ArraySlice<Int16>) -> Double { x.reduce(0) { $0 + Double($1) * Double($1) } }

@Test func echoCancellerRemovesDelayedEcho() throws {
    let frame = 256, n = 16000 * 6
    let ref = noise(n, seed: 1)
    var mic = [Int16](repeating: 0, count: n)
    for i in 40..<n { mic[i] = Int16(Float(ref[i - 40]) * 0.5) }
    let aec = try EchoCanceller(frameSize: frame, filterLength: 1024, sampleRate: 16000)
    #expect(aec.impulseResponseLength == 1024)
    var out = [Int16](repeating: 0, count: n)
    mic.withUnsafeBufferPointer { m in
        ref.withUnsafeBufferPointer { r in
            out.withUnsafeMutableBufferPointer { o in
                for f in stride(from: 0, to: n, by: frame) {
                    aec.process(
                        mic: UnsafeBufferPointer(rebasing: m[f..<f + frame]), reference: UnsafeBufferPointer(rebasing: r[f..<f + frame]),
                        output: UnsafeMutableBufferPointer(rebasing: o[f..<f + frame]))
                }
            }
        }
    }
    let tail = (n - 16000)..<n
    let erle = 10 * log10(energy(mic[tail]) / max(energy(out[tail]), 1))
    #expect(erle > 20, "ERLE \(erle) dB")
    var ir = [Int32](repeating: 0, count: 1024)
    ir.withUnsafeMutableBufferPointer { aec.impulseResponse(into: $0) }
    let peak = ir.indices.max { abs(ir[$0]) < abs(ir[$1]) }!
    #expect(abs(peak - 40) <= 1, "impulse response peak at \(peak)")
}

/// speexdsp's filter is a whole number of frames: 3072 taps with 160-sample frames are 20 blocks, 3200
/// taps, all of which `impulseResponse(into:)` writes.
@Test func impulseResponseLengthIsWholeFrames() throws {
    let aec = try EchoCanceller(frameSize: 160, filterLength: 3072, sampleRate: 16000)
    #expect(aec.impulseResponseLength == 3200)
    let guardTaps = 64
    var ir = [Int32](repeating: 0x5A5A_5A5A, count: aec.impulseResponseLength + guardTaps)
    ir.withUnsafeMutableBufferPointer { aec.impulseResponse(into: UnsafeMutableBufferPointer(rebasing: $0[0..<aec.impulseResponseLength])) }
    #expect(ir[aec.impulseResponseLength...].allSatisfy { $0 == 0x5A5A_5A5A })
    #expect(ir[..<aec.impulseResponseLength].allSatisfy { $0 == 0 })
}

@Test func echoCancellerRejectsBadSizes() {
    #expect(throws: SpeexDSPError.self) { try EchoCanceller(frameSize: 0, filterLength: 10, sampleRate: 16000) }
    do { _ = try EchoCanceller(frameSize: 0, filterLength: 10, sampleRate: 16000) } catch {
        #expect(error.description.contains("speex_echo_state_init"))
    }
}

@Test func preprocessorSettingsRoundTripAndSpeechProbability() throws {
    let pp = try Preprocessor(frameSize: 256, sampleRate: 16000)
    try pp.setDenoise(true)
    try pp.setNoiseSuppress(dB: -20)
    try pp.setAGC(true)
    try pp.setAGCLevel(6000)
    try pp.setEchoSuppress(dB: -35)
    try pp.setEchoSuppressActive(dB: -12)
    try pp.setVAD(true)
    #expect(pp.denoise)
    #expect(pp.noiseSuppressDB == -20)
    #expect(pp.agc)
    #expect(pp.agcLevel == 6000)
    #expect(pp.echoSuppressDB == -35)
    #expect(pp.echoSuppressActiveDB == -12)
    let aec = try EchoCanceller(frameSize: 256, filterLength: 2048, sampleRate: 16000)
    try pp.linkEchoCanceller(aec)
    try pp.linkEchoCanceller(nil)
    // silence then a loud tone: probability must rise.
    var frame = [Int16](repeating: 0, count: 256)
    for _ in 0..<20 { frame.withUnsafeMutableBufferPointer { _ = pp.process($0) } }
    let quiet = pp.speechProbability
    var loud = false
    for k in 0..<40 {
        for i in 0..<256 {
            let phase = Float(k * 256 + i) * (2 * Float.pi * 300 / 16000)
            frame[i] = Int16(10000 * sinf(phase))
        }
        loud = frame.withUnsafeMutableBufferPointer { pp.process($0) } || loud
    }
    #expect(pp.speechProbability >= quiet)
    #expect(loud)
}

@Test func resampler16To24HasExactLengths() throws {
    let rs = try Resampler(inputRate: 16000, outputRate: 24000, quality: 5)
    #expect(rs.inputLatency > 0 && rs.outputLatency > 0)
    let input = noise(256, seed: 3)
    var out = [Int16](repeating: 0, count: 512)
    var produced = 0
    for _ in 0..<50 {
        let r = input.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { rs.process(input: i, output: $0) } }
        #expect(r.consumed == 256)
        produced += r.produced
    }
    #expect(produced == 50 * 384)
}

@Test func resamplerFractionalRatioConsumesMore() throws {
    // 1% fast: 1.01 input samples per output sample.
    let rs = try Resampler(ratioNumerator: 101, ratioDenominator: 100, inputRate: 16000, outputRate: 16000, quality: 3)
    let input = noise(16000, seed: 4)
    var out = [Int16](repeating: 0, count: 17000)
    let r = input.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { rs.process(input: i, output: $0) } }
    #expect(r.consumed == 16000)
    #expect(abs(Double(r.produced) - 16000 / 1.01) < 40, "produced \(r.produced)")
    try rs.setRatio(numerator: 10_000_500, denominator: 10_000_000)
    #expect(rs.ratioNumerator == 10_000_500)
    #expect(throws: SpeexDSPError.self) { try rs.setRatio(numerator: 0, denominator: 1) }
    #expect(throws: SpeexDSPError.self) { try Resampler(inputRate: 16000, outputRate: 24000, quality: 11) }
}

@Test func resamplerDriftRatioProducesExpectedCountOverTime() throws {
    // As the drift compensator uses it: created fractional, set to 1, then 45 ppm.
    let rs = try Resampler(ratioNumerator: 10_000_001, ratioDenominator: 10_000_000, inputRate: 16000, outputRate: 16000, quality: 5)
    try rs.setRatio(numerator: 10_000_000, denominator: 10_000_000)
    try rs.setRatio(numerator: 10_000_453, denominator: 10_000_000)
    let loud = noise(256, seed: 9)
    let silent = [Int16](repeating: 0, count: 256)
    var out = [Int16](repeating: 0, count: 600)
    for input in [loud, silent] {
        var produced = 0
        for _ in 0..<1250 {  // 20 s
            let r = input.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { rs.process(input: i, output: $0) } }
            #expect(r.consumed == 256)
            produced += r.produced
        }
        let expected = 320_000 / 1.0000453
        #expect(abs(Double(produced) - expected) < 2, "produced \(produced), expected \(expected)")
    }
}
