import Glibc

/// How periodic a block of sound is above `highPassHz`: the highest normalized autocorrelation of the
/// high-passed block at the lags of a voice's pitch period, 2.5 to 14 ms (400 to 70 Hz). A voiced sound
/// repeats itself one period later and comes near 1, through the harmonics its formants carry; noise (a
/// fan's rush, running water) does not: on Benchmarks/aec-real's noisy-room files the suppressed output of
/// a fan or a tap switched on never reached `NearEndVerdicts.voicedPeriodicity` before the room
/// floor had learnt it. The high-pass keeps a motor's low hum out: the measure follows the speech bands
/// the detectors use, where a voice's harmonics are and a 110 Hz hum's fundamental is not.
/// Write the block into `input` (a window that starts and ends near zero), call `measure()`, which
/// filters `input` in place; `bestLag` and `correlation(near:slack:)` then read the same measure. All
/// storage is allocated in init; one thread.
final class PeriodicityMeter {
    let length: Int
    private let buffers = BufferStore()
    /// `length` samples, zero until written.
    let input: UnsafeMutablePointer<Float>
    /// Sums of squares of the filtered block's first i samples, i = 0...length.
    private let energy: UnsafeMutablePointer<Float>
    private let lags: ClosedRange<Int>
    /// The last measure's normalized autocorrelation per lag (index: lag − the shortest lag).
    private let correlations: UnsafeMutablePointer<Float>
    /// The lag of the last measure's highest correlation, in samples (the shortest lag for silence).
    private(set) var bestLag: Int
    /// One second-order Butterworth high-pass section (RBJ), applied twice: 24 dB per octave.
    private let b0: Float, b1: Float, b2: Float, a1: Float, a2: Float

    init(length: Int, sampleRate: Int, highPassHz: Float = 300) {
        let shortest = sampleRate / 400, longest = min(length / 2, sampleRate / 70)
        precondition(shortest >= 1 && shortest <= longest, "the block is too short for a pitch period")
        self.length = length
        lags = shortest...longest
        input = buffers.floats(length)
        energy = buffers.floats(length + 1)
        correlations = buffers.floats(longest - shortest + 1)
        bestLag = shortest
        let w0 = 2 * Float.pi * highPassHz / Float(sampleRate), alpha = sinf(w0) / Float(2).squareRoot()
        let c = cosf(w0), a0 = 1 + alpha
        b0 = (1 + c) / 2 / a0
        b1 = -(1 + c) / a0
        b2 = b0
        a1 = -2 * c / a0
        a2 = (1 - alpha) / a0
    }

    /// The periodicity of `input` above the high-pass, 0...1 (0 for silence).
    func measure() -> Float {
        let n = length
        for _ in 0..<2 {
            var x1: Float = 0, x2: Float = 0, y1: Float = 0, y2: Float = 0
            for i in 0..<n {
                let x = input[i]
                let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
                x2 = x1
                x1 = x
                y2 = y1
                y1 = y
                input[i] = y
            }
        }
        energy[0] = 0
        for i in 0..<n { energy[i + 1] = energy[i] + input[i] * input[i] }
        var best: Float = 0
        bestLag = lags.lowerBound
        for lag in lags {
            let index = lag - lags.lowerBound
            correlations[index] = 0
            let overlapEnergy = energy[n - lag] * (energy[n] - energy[lag])
            guard overlapEnergy > 0 else { continue }
            var dot: Float = 0
            for i in 0..<(n - lag) { dot += input[i] * input[i + lag] }
            correlations[index] = dot / sqrtf(overlapEnergy)
            if correlations[index] > best {
                best = correlations[index]
                bestLag = lag
            }
        }
        return best
    }

    /// The last measure's highest correlation at the lags within `slack` samples of `lag` (0 where none
    /// of them is a pitch period).
    func correlation(near lag: Int, slack: Int) -> Float {
        let low = max(lags.lowerBound, lag - slack), high = min(lags.upperBound, lag + slack)
        guard low <= high else { return 0 }
        var best: Float = 0
        for l in low...high { best = max(best, correlations[l - lags.lowerBound]) }
        return best
    }
}
