import Glibc
import TestSupport
import Testing

@testable import EchoControl

/// The transform against a direct DFT, forward and inverse, at the smallest sizes (where the first
/// stages' special cases are all there is) and at the chain's sizes.
@Test(arguments: [2, 4, 8, 64, 512])
func stagedFFTEqualsTheDirectTransform(size n: Int) {
    var white = CaptureChainTestSignals.White(seed: 11)
    let inputRe = (0..<n).map { _ in Double(white.sample(rms: 3000)) }
    let inputIm = (0..<n).map { _ in Double(white.sample(rms: 3000)) }
    for inverse in [false, true] {
        let fft = StagedFFT(size: n)
        for i in 0..<n {
            fft.re[i] = Float(inputRe[i])
            fft.im[i] = Float(inputIm[i])
        }
        fft.transform(inverse: inverse)
        let sign: Double = inverse ? 1 : -1
        var largest: Double = 0
        var expected: [(re: Double, im: Double)] = []
        for k in 0..<n {
            var sr: Double = 0, si: Double = 0
            for j in 0..<n {
                let a = sign * 2 * Double.pi * Double(j * k % n) / Double(n)
                sr += inputRe[j] * cos(a) - inputIm[j] * sin(a)
                si += inputRe[j] * sin(a) + inputIm[j] * cos(a)
            }
            expected.append((sr, si))
            largest = max(largest, (sr * sr + si * si).squareRoot())
        }
        for k in 0..<n {
            let error = hypot(Double(fft.re[k]) - expected[k].re, Double(fft.im[k]) - expected[k].im)
            // Float rounding grows with log2(n); a wrong twiddle or butterfly is off by the bin itself.
            #expect(error <= 1e-5 * largest, "bin \(k) of \(n) (inverse: \(inverse)): off by \(error)")
        }
    }
}

/// Run stage by stage with other work in between (how the delay estimator spreads it), the result is
/// the same as at once.
@Test func stagedFFTStepByStepEqualsTheWholeTransform() {
    let n = 256
    var white = CaptureChainTestSignals.White(seed: 5)
    let block = (0..<n).map { _ in Float(white.sample(rms: 3000)) }
    let whole = StagedFFT(size: n), stepped = StagedFFT(size: n)
    for i in 0..<n {
        whole.re[i] = block[i]
        whole.im[i] = 0
        stepped.re[i] = block[i]
        stepped.im[i] = 0
    }
    whole.transform(inverse: false)
    stepped.permute()
    let other = StagedFFT(size: 8)
    for stage in 1...stepped.stages {
        stepped.runStage(stage, inverse: false)
        other.transform(inverse: true)
    }
    for k in 0..<n {
        #expect(whole.re[k] == stepped.re[k] && whole.im[k] == stepped.im[k])
    }
}
