import SpeexDSP

/// Resamples the reference by a fractional ratio that follows the clock drift between the echo
/// path (playback DAC) and capture (ADC).
///
/// The drift is measured from the echo canceller itself: the peak of its adapted impulse response
/// (the direct path) moves by `drift x elapsed samples`. Every 16 frames the peak is located with
/// sub-sample (parabolic) precision; once 16 points lie on a line, its slope is the residual drift
/// and is added to the resampler ratio. No allocation after init.
final class DriftCompensator {
    /// Owns every buffer below.
    private let buffers = BufferStore()
    static let ratioDenominator: UInt32 = 10_000_000

    let resampler: Resampler
    let frameSize: Int
    let enabled: Bool
    private(set) var correctionPPM: Double = 0
    private let impulse: UnsafeMutableBufferPointer<Int32>
    private let times: UnsafeMutablePointer<Double>
    private let peaks: UnsafeMutablePointer<Double>
    private static let pointsPerFit = 24
    private static let frameInterval = 8
    private var count = 0
    private var frame = 0
    private var settle = 0

    /// `impulseResponseLength`: the echo canceller's (`EchoCanceller.impulseResponseLength`), which it
    /// writes whole into the buffer allocated here.
    init(frameSize: Int, impulseResponseLength: Int, sampleRate: Int, enabled: Bool) throws(SpeexDSPError) {
        self.frameSize = frameSize
        self.enabled = enabled
        // Created with a ratio that does not reduce, so speex allocates its interpolation table now;
        // later ratio changes then never reallocate (speexdsp 1.2.1 update_filter only grows it).
        resampler = try Resampler(
            ratioNumerator: Self.ratioDenominator + 1, ratioDenominator: Self.ratioDenominator,
            inputRate: sampleRate, outputRate: sampleRate, quality: 5)
        try resampler.setRatio(numerator: Self.ratioDenominator, denominator: Self.ratioDenominator)
        impulse = buffers.takeBuffer(impulseResponseLength, 0)
        times = buffers.takeUninitialized(Self.pointsPerFit)
        peaks = buffers.takeUninitialized(Self.pointsPerFit)
    }

    /// Reference delay added by the resampler, in samples (0 when disabled: no resampler in the path).
    var latency: Int { enabled ? resampler.inputLatency : 0 }

    /// Disabled: a plain copy (the 1:1 resampler would only cost time and add delay).
    func resample(_ input: UnsafeBufferPointer<Int16>, into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        guard enabled else {
            let n = min(input.count, output.count)
            for i in 0..<n { output[i] = input[i] }
            return n
        }
        return resampler.process(input: input, output: output).produced
    }

    /// Forget collected peak positions (the alignment changed or the filter was reset).
    func clearHistory() {
        count = 0
        settle = 0
    }

    /// The echo had moved `samples` later than the filter's peak (`ReferenceSlipCheck`) and the reference is
    /// now read that much further back, the filter kept: the peak will not show that part of the drift, so
    /// the positions collected so far move back by as much and the fit sees the whole of it.
    func referenceMoved(by samples: Int) {
        for i in 0..<count { peaks[i] -= Double(samples) }
    }

    /// Called once per frame after the echo canceller ran.
    func observe(_ echo: EchoCanceller, converged: Bool) {
        guard enabled else { return }
        frame += 1
        guard frame % Self.frameInterval == 0 else { return }
        guard converged else { return }
        if settle > 0 {
            settle -= 1
            return
        }
        echo.impulseResponse(into: impulse)
        var best = 0
        var bestValue: Int32 = 0
        var sum: Int64 = 0
        for i in 0..<impulse.count {
            let v = impulse[i] == .min ? Int32.max : abs(impulse[i])
            sum += Int64(v)
            if v > bestValue {
                bestValue = v
                best = i
            }
        }
        let mean = Double(sum) / Double(impulse.count)
        guard Double(bestValue) > 8 * mean, best > 0, best < impulse.count - 1 else {
            count = 0
            return
        }
        let a = Double(abs(impulse[best - 1])), c = Double(bestValue), b = Double(abs(impulse[best + 1]))
        let d = a - 2 * c + b
        let position = Double(best) + (d < 0 ? max(-0.5, min(0.5, 0.5 * (a - b) / d)) : 0)
        if count > 0, abs(position - peaks[count - 1]) > 2 { count = 0 }
        times[count] = Double(frame)
        peaks[count] = position
        count += 1
        if count == Self.pointsPerFit { fit() }
    }

    private func fit() {
        let n = Double(count)
        var st = 0.0, sp = 0.0
        for i in 0..<count {
            st += times[i]
            sp += peaks[i]
        }
        let mt = st / n, mp = sp / n
        var stt = 0.0, stp = 0.0
        for i in 0..<count {
            stt += (times[i] - mt) * (times[i] - mt)
            stp += (times[i] - mt) * (peaks[i] - mp)
        }
        let slope = stp / stt  // taps per frame
        var worst = 0.0
        for i in 0..<count { worst = max(worst, abs(peaks[i] - mp - slope * (times[i] - mt))) }
        count = 0
        guard worst < 1.0 else { return }
        // The peak moves towards smaller taps when the echo path runs fast: consume more reference.
        let residualPPM = -slope / Double(frameSize) * 1e6
        // Below 3 ppm the fit is within its own noise (1-2 ppm on an aligned scene), and each ratio
        // change between fractional ratios costs a sub-sample phase step (see Resampler).
        guard abs(residualPPM) >= EchoControlTuning.Alignment.minDriftPPM, abs(residualPPM) <= EchoControlTuning.Alignment.maxDriftPPM else { return }
        // The first correction is taken whole; later ones are noisier refinements: take half. The
        // canceller is not reset after one: a reset that fell into double talk lost more than it gained.
        setCorrection(correctionPPM + (corrections == 0 ? residualPPM : 0.5 * residualPPM))
        corrections += 1
        settle = 2
    }

    private var corrections = 0

    func setCorrection(_ ppm: Double) {
        let clamped = max(-EchoControlTuning.Alignment.maxDriftPPM, min(EchoControlTuning.Alignment.maxDriftPPM, ppm))
        let numerator = UInt32(Int64(Self.ratioDenominator) + Int64((clamped * Double(Self.ratioDenominator) / 1e6).rounded()))
        do {
            try resampler.setRatio(numerator: numerator, denominator: Self.ratioDenominator)
            correctionPPM = clamped
        } catch {
            // Cannot fail for positive ratios; keep the previous ratio.
        }
    }
}
