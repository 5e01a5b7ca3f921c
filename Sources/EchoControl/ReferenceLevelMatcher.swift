import Glibc

/// Decides a power-of-two gain for the echo canceller's reference, so that the reference is about as loud
/// as the echo it causes.
///
/// speexdsp adapts, until it counts itself adapted, with a step of 0.25 × reference energy ÷ error
/// energy: it assumes the echo is no louder than the reference. A hardware loopback channel breaks that:
/// the ReSpeaker array's loopback is 19-20 dB below the echo its microphones hear (Benchmarks/aec-real,
/// respeaker-music1/2), and there the canceller removed 1-5 dB per second over 31 s of music. With the
/// reference raised 8× it removes 9-50 dB per second (median 17) from the third second on.
///
/// The echo-to-reference ratio is the lower quartile of the mic's power over the reference's in frames
/// where the reference plays (a talker over the far end raises a frame's ratio; the lower quartile follows
/// the echo): taken exactly over the first `settleFrames` such frames, then tracked in fixed steps. (A
/// tracker alone, with large steps while it settled, was pulled 30 dB low by the few frames in which the
/// echo had not yet reached the mic, and the first gain taken was a step short.) The gain is the smallest
/// power of two that brings the reference within 3 dB of that ratio, at most `maxShift` doublings, and never
/// so much that the reference's recent peak would pass half of full scale. It is taken once it has been
/// wanted for `settleFrames` frames of far-end sound, and only ever raised (a reference louder than its echo
/// is what the canceller expects), except that a gain that would clip the frame at hand is lowered at once.
/// The caller restarts the canceller after a change: its filter was learnt at the old scale.
///
/// Allocation-free after init; realtime-safe. One thread.
struct ReferenceLevelMatcher {
    typealias Tuning = EchoControlTuning.LevelMatching
    /// Far-end frames before the first decision, and frames a new gain must be wanted before it is taken.
    let settleFrames: Int
    let maxShift: Int

    /// The reference is multiplied by `1 << shift`.
    private(set) var shift = 0
    private var ratioDB: Float = 0
    private var farEndFrames = 0
    private var peakHeld: Float = 0
    private var wantedFrames = 0
    /// The ratios (dB) of the first `settleFrames` far-end frames.
    private var settleRatios: [Float]
    private let peakDecay: Float

    /// `maxShift`: the most doublings (0 keeps the reference as it is); `peakHoldFrames`: the reference's
    /// peak is held with a half-life of this many frames.
    init(maxShift: Int, settleFrames: Int, peakHoldFrames: Int) {
        self.maxShift = max(0, min(maxShift, 8))
        self.settleFrames = max(1, settleFrames)
        peakDecay = powf(0.5, 1 / Float(max(1, peakHoldFrames)))
        settleRatios = [Float](repeating: 0, count: self.settleFrames)
    }

    var gain: Int { 1 << shift }

    /// It may still raise a reference it has not raised yet: until then a quiet reference may be one
    /// that needs raising, not silence.
    var mayRaise: Bool { maxShift > 0 && shift == 0 }

    /// One frame of the aligned reference and mic before the gain (energies: sums of squares over the
    /// frame's `frameSize` samples). Returns true when `shift` changed.
    mutating func observe(referenceEnergy: Float, referencePeak: Int16, micEnergy: Float, frameSize: Int) -> Bool {
        guard maxShift > 0 else { return false }
        let peak = Float(referencePeak)
        peakHeld = max(peak, peakHeld * peakDecay)
        if shift > 0 && Float(gain) * peak > 32_767 {
            while shift > 0 && Float(gain) * peak > 32_767 { shift -= 1 }
            wantedFrames = 0
            return true
        }
        // Only frames where the reference carries sound; a digitally silent mic counts as hearing no echo.
        guard referenceEnergy > Float(frameSize) * Tuning.soundPower else { return false }
        let frameRatio = 10 * log10f(max(micEnergy, 1) / referenceEnergy)
        if farEndFrames < settleFrames {
            settleRatios[farEndFrames] = frameRatio
            farEndFrames += 1
            guard farEndFrames == settleFrames else { return false }
            ratioDB = Self.sortAndPick(Tuning.quantile, of: &settleRatios)
        } else {
            ratioDB += frameRatio > ratioDB ? Tuning.quantileStep * Tuning.quantile : -Tuning.quantileStep * (1 - Tuning.quantile)
        }
        let doublings = Int(ceilf((ratioDB - Tuning.toleranceDB) / (20 * log10f(2))))
        var target = max(0, min(maxShift, doublings))
        while target > 0 && Float(1 << target) * peakHeld > Tuning.headroomPeak { target -= 1 }
        guard target > shift else {
            wantedFrames = 0
            return false
        }
        wantedFrames += 1
        guard wantedFrames >= settleFrames else { return false }
        shift = target
        wantedFrames = 0
        return true
    }

    /// The `q` quantile of `values`, which it sorts in place (insertion sort: bounded, allocation-free).
    static func sortAndPick(_ q: Float, of values: inout [Float]) -> Float {
        values.withUnsafeMutableBufferPointer { v in
            guard !v.isEmpty else { return 0 }
            for i in 1..<v.count {
                let x = v[i]
                var j = i
                while j > 0 && v[j - 1] > x {
                    v[j] = v[j - 1]
                    j -= 1
                }
                v[j] = x
            }
            return v[Int(q * Float(v.count - 1))]
        }
    }
}
