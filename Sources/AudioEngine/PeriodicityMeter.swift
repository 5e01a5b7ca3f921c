import Glibc

/// How periodic a block of sound is: the highest normalized autocorrelation of the block at the lags of a
/// voice's pitch period, 2.5 to 14 ms (400 to 70 Hz). A voiced sound repeats itself one period later and
/// comes near 1; noise (a fan's rush, running water) does not: on Benchmarks/aec-real's noisy-room files
/// the suppressed output of a fan or a tap switched on stays under 0.3 frame after frame.
/// Write the block into `input`, call `measure()`. All storage is allocated in init; one thread.
final class PeriodicityMeter {
    let length: Int
    /// `length` samples, zero until written.
    let input: UnsafeMutablePointer<Float>
    /// Sums of squares of `input`'s first i samples, i = 0...length.
    private let energy: UnsafeMutablePointer<Float>
    private let lags: ClosedRange<Int>

    init(length: Int, sampleRate: Int) {
        let shortest = sampleRate / 400, longest = min(length / 2, sampleRate / 70)
        precondition(shortest >= 1 && shortest <= longest, "the block is too short for a pitch period")
        self.length = length
        lags = shortest...longest
        input = .floats(length)
        energy = .floats(length + 1)
    }

    deinit { input.deallocate(); energy.deallocate() }

    /// The periodicity of `input`, 0...1 (0 for silence).
    func measure() -> Float {
        let n = length
        energy[0] = 0
        for i in 0..<n { energy[i + 1] = energy[i] + input[i] * input[i] }
        var best: Float = 0
        for lag in lags {
            let overlapEnergy = energy[n - lag] * (energy[n] - energy[lag])
            guard overlapEnergy > 0 else { continue }
            var dot: Float = 0
            for i in 0..<(n - lag) { dot += input[i] * input[i + lag] }
            best = max(best, dot / sqrtf(overlapEnergy))
        }
        return best
    }
}
