import Testing
@testable import AudioEngine

@Test func realPowerSpectrumEqualsTheFullComplexTransform() {
    let n = 512
    let spectrum = RealPowerSpectrum(size: n)
    let full = StagedFFT(size: n)
    var white = CaptureChainTestSignals.White(seed: 3)
    var block = [Float](repeating: 0, count: n)
    for i in 0..<n { block[i] = Float(white.sample(rms: 3000)) + 2000 * Float(i % 7) }
    for i in 0..<n { spectrum.input[i] = block[i] }
    spectrum.compute()
    for i in 0..<n { full.re[i] = block[i]; full.im[i] = 0 }
    full.transform(inverse: false)
    var worst: Float = 0, total: Float = 0
    for k in 0...n / 2 {
        let expected = full.re[k] * full.re[k] + full.im[k] * full.im[k]
        worst = max(worst, abs(spectrum.power[k] - expected))
        total += expected
    }
    #expect(worst <= 1e-5 * total, "largest difference \(worst) of a total power \(total)")
}
