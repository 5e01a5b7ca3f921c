import Glibc

/// Estimates how much later the echo appears in the microphone than in the reference, by GCC-PHAT
/// on 4 kHz decimated, 100-1900 Hz band-limited signals, with the cross-spectrum smoothed over
/// blocks. Lags in both directions up to `maxLagSamples` are searched.
///
/// Realtime-safe: all storage is allocated in init, and each `process` call does at most a fixed
/// slice of the analysis (a permutation or butterfly stages of an FFT), so the cost per frame is
/// bounded no matter when an analysis completes.
public final class DelayEstimator {
    /// Owns every buffer below.
    private let buffers = BufferStore()
    public struct Estimate: Sendable, Equatable {
        /// Positive: the echo in the mic is later than the reference, in samples at the input rate.
        public var lagSamples: Double
        /// Peak of the PHAT correlation over the strongest peak elsewhere (>= 1; ~1 means no clear echo).
        public var confidence: Float
    }

    public let sampleRate: Int
    public let maxLagSamples: Int
    let decimation: Int
    let maxLagDecimated: Int
    let blockLength: Int
    let hop: Int
    let fft: StagedFFT

    private static let firLength = 32
    private let fir: UnsafeMutablePointer<Float>
    private let micHistory: UnsafeMutablePointer<Float>
    private let refHistory: UnsafeMutablePointer<Float>
    private var historyIndex = 0
    private var decimationPhase = 0

    private let micBlock: UnsafeMutablePointer<Float>
    private let refBlock: UnsafeMutablePointer<Float>
    private var written = 0
    private var sinceAnalysis = 0

    private let smoothedRe: UnsafeMutablePointer<Float>
    private let smoothedIm: UnsafeMutablePointer<Float>
    private var smoothedBlocks = 0
    private let lowBin: Int
    private let highBin: Int
    private let stepsPerCall: Int
    private var step = 0

    /// Analyses completed (for tests and logs).
    public private(set) var analyses = 0
    public private(set) var latest: Estimate?

    public init(sampleRate: Int, maxLagSamples: Int) {
        self.sampleRate = sampleRate
        decimation = max(1, sampleRate / 4000)
        let decimatedRate = Double(sampleRate / decimation)
        self.maxLagSamples = maxLagSamples
        maxLagDecimated = max(8, (maxLagSamples + decimation - 1) / decimation)
        var b = 256
        while b < 2 * maxLagDecimated { b <<= 1 }
        blockLength = b
        hop = b / 2
        fft = StagedFFT(size: 2 * b)
        lowBin = Int(100 / decimatedRate * Double(2 * b))
        highBin = min(b - 1, Int(1900 / decimatedRate * Double(2 * b)))

        fir = buffers.takeUninitialized(Self.firLength)
        let cutoff = 0.85 / Double(2 * decimation)
        let center = Double(Self.firLength - 1) / 2
        for i in 0..<Self.firLength {
            let t = Double(i) - center
            let sinc = t == 0 ? 2 * cutoff : sin(2 * Double.pi * cutoff * t) / (Double.pi * t)
            let hann = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(Self.firLength - 1))
            fir[i] = Float(sinc * hann)
        }
        micHistory = buffers.take(Self.firLength, 0)
        refHistory = buffers.take(Self.firLength, 0)
        micBlock = buffers.take(b, 0)
        refBlock = buffers.take(b, 0)
        smoothedRe = buffers.take(b + 1, 0)
        smoothedIm = buffers.take(b + 1, 0)
        // Finish one analysis (2 FFTs + 3 other steps) within ~70 % of a hop, assuming 64-sample frames or larger.
        let totalSteps = 2 * (fft.stages + 1) + 2
        let callsPerHop = max(1, hop * decimation / 256)
        stepsPerCall = max(1, (totalSteps * 10 + 7 * callsPerHop - 1) / (7 * callsPerHop))
    }

    /// Forgets everything (call after the alignment of the fed signals changed).
    public func reset() {
        micHistory.update(repeating: 0, count: Self.firLength)
        refHistory.update(repeating: 0, count: Self.firLength)
        smoothedRe.update(repeating: 0, count: blockLength + 1)
        smoothedIm.update(repeating: 0, count: blockLength + 1)
        smoothedBlocks = 0
        written = 0
        sinceAnalysis = 0
        step = 0
        latest = nil
    }

    /// Feeds one frame of mic and reference (same length) and does a bounded slice of analysis.
    /// Returns an estimate when an analysis finished during this call.
    public func process(mic: UnsafeBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>) -> Estimate? {
        let n = min(mic.count, reference.count)
        for i in 0..<n {
            micHistory[historyIndex] = Float(mic[i])
            refHistory[historyIndex] = Float(reference[i])
            historyIndex = (historyIndex + 1) & (Self.firLength - 1)
            decimationPhase += 1
            if decimationPhase == decimation {
                decimationPhase = 0
                var m: Float = 0, r: Float = 0
                var h = historyIndex
                for k in 0..<Self.firLength {
                    h = (h - 1) & (Self.firLength - 1)
                    m += fir[k] * micHistory[h]
                    r += fir[k] * refHistory[h]
                }
                micBlock[written & (blockLength - 1)] = m
                refBlock[written & (blockLength - 1)] = r
                written += 1
                sinceAnalysis += 1
            }
        }
        if step == 0, written >= blockLength, sinceAnalysis >= hop {
            sinceAnalysis = 0
            step = 1
        }
        var result: Estimate?
        var budget = stepsPerCall
        while step != 0, budget > 0 {
            result = runStep() ?? result
            budget -= 1
        }
        return result
    }

    /// Steps: 1 load+permute, 2...S+1 forward stages, S+2 cross-spectrum+permute,
    /// S+3...2S+2 inverse stages, 2S+3 peak pick.
    private func runStep() -> Estimate? {
        let s = fft.stages
        // Plain comparisons, not `case a...b:` patterns: in unoptimized builds those go through
        // `ClosedRange: RangeExpression`'s witness table, instantiated (malloc + mutex) the first
        // time the estimator runs on rt:capture; rtcheck caught it.
        switch step {
        case 1:
            if !loadBlock() {
                step = 0
                return nil
            }
            fft.permute()
        case _ where step >= 2 && step <= s + 1:
            fft.runStage(step - 1, inverse: false)
        case s + 2:
            crossSpectrum()
            fft.permute()
        case _ where step >= s + 3 && step <= 2 * s + 2:
            fft.runStage(step - s - 2, inverse: true)
        default:
            step = 0
            analyses += 1
            let e = pickPeak()
            latest = e
            return e
        }
        step += 1
        return nil
    }

    /// Packs mic (real) and reference (imaginary) of the last block; false when the reference is silent.
    private func loadBlock() -> Bool {
        let start = written - blockLength
        var refEnergy: Float = 0
        for i in 0..<blockLength {
            let j = (start + i) & (blockLength - 1)
            fft.re[i] = micBlock[j]
            fft.im[i] = refBlock[j]
            refEnergy += refBlock[j] * refBlock[j]
        }
        let size = fft.size
        for i in blockLength..<size {
            fft.re[i] = 0
            fft.im[i] = 0
        }
        // About -60 dBFS RMS: nothing to correlate with.
        return refEnergy / Float(blockLength) > 1.0
    }

    private func crossSpectrum() {
        let n = fft.size
        let re = fft.re, im = fft.im
        var magnitudeSum: Float = 0
        // Bins 0...n/2 from the packed transform: X = (Z[k] + conj Z[n-k]) / 2, Y = -i (Z[k] - conj Z[n-k]) / 2.
        for k in 0...(n / 2) {
            let k2 = (n - k) & (n - 1)
            let zr = re[k], zi = im[k], cr = re[k2], ci = -im[k2]
            let xr = (zr + cr) / 2, xi = (zi + ci) / 2
            let dr = (zr - cr) / 2, di = (zi - ci) / 2
            let yr = di, yi = -dr
            // X * conj(Y)
            let pr = xr * yr + xi * yi
            let pi = xi * yr - xr * yi
            smoothedRe[k] = 0.75 * smoothedRe[k] + pr
            smoothedIm[k] = 0.75 * smoothedIm[k] + pi
            if k >= lowBin && k <= highBin { magnitudeSum += sqrtf(pr * pr + pi * pi) }
        }
        smoothedBlocks += 1
        var mean: Float = 0
        for k in lowBin...highBin { mean += sqrtf(smoothedRe[k] * smoothedRe[k] + smoothedIm[k] * smoothedIm[k]) }
        mean /= Float(highBin - lowBin + 1)
        let floor = 1e-3 * mean + 1e-20
        for k in 0...(n / 2) {
            if k < lowBin || k > highBin {
                re[k] = 0
                im[k] = 0
            } else {
                let mag = sqrtf(smoothedRe[k] * smoothedRe[k] + smoothedIm[k] * smoothedIm[k]) + floor
                re[k] = smoothedRe[k] / mag
                im[k] = smoothedIm[k] / mag
            }
            if k > 0 && k < n / 2 {
                re[n - k] = re[k]
                im[n - k] = -im[k]
            }
        }
    }

    private func pickPeak() -> Estimate {
        let n = fft.size
        let re = fft.re
        func value(_ lag: Int) -> Float { re[lag >= 0 ? lag : n + lag] }
        var best = 0
        var bestValue = -Float.greatestFiniteMagnitude
        for lag in -maxLagDecimated...maxLagDecimated where value(lag) > bestValue {
            bestValue = value(lag)
            best = lag
        }
        var second: Float = 0
        for lag in -maxLagDecimated...maxLagDecimated where abs(lag - best) > 3 {
            second = max(second, value(lag))
        }
        var delta: Double = 0
        if best > -maxLagDecimated && best < maxLagDecimated {
            let a = Double(value(best - 1)), c = Double(value(best)), b = Double(value(best + 1))
            let d = a - 2 * c + b
            if d < 0 { delta = max(-0.5, min(0.5, 0.5 * (a - b) / d)) }
        }
        let confidence = second > 0 ? bestValue / second : (bestValue > 0 ? 100 : 1)
        return Estimate(lagSamples: (Double(best) + delta) * Double(decimation), confidence: min(confidence, 100))
    }
}
