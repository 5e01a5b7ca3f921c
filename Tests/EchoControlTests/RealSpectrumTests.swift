import TestSupport
import Testing

@testable import EchoControl

@Test(arguments: [8, 512])
func realSpectrumEqualsTheFullComplexTransform(size n: Int) {
    let spectrum = RealSpectrum(size: n)
    let full = StagedFFT(size: n)
    var white = CaptureChainTestSignals.White(seed: 3)
    var block = [Float](repeating: 0, count: n)
    for i in 0..<n { block[i] = Float(white.sample(rms: 3000)) + 2000 * Float(i % 7) }
    for i in 0..<n { spectrum.input[i] = block[i] }
    spectrum.compute()
    for i in 0..<n {
        full.re[i] = block[i]
        full.im[i] = 0
    }
    full.transform(inverse: false)
    let expected = (0...n / 2).map { full.re[$0] * full.re[$0] + full.im[$0] * full.im[$0] }
    let largest = expected.max() ?? 0
    for k in 0...n / 2 {
        // Float rounding of both transforms, relative to the largest bin; a wrong split is off by the bin itself.
        #expect(
            abs(spectrum.power[k] - expected[k]) <= 1e-5 * largest + 1e-3 * expected[k],
            "bin \(k): \(spectrum.power[k]) instead of \(expected[k])")
        let re = spectrum.re[k] - full.re[k], im = spectrum.im[k] - full.im[k]
        #expect(
            re * re + im * im <= 1e-5 * largest + 1e-3 * expected[k],
            "bin \(k): \(spectrum.re[k]) + \(spectrum.im[k])i instead of \(full.re[k]) + \(full.im[k])i")
    }
}
