import SpeexDSP

/// After a gap in the streams (a capture overrun, a playback underrun, a device reopened), the devices
/// start again at a new sub-sample phase, and in about half the restarts the reference comes back a whole
/// sample off the echo (`XrunAlignmentTests`: 28 of 60), and on a loaded machine the first delay measurement
/// after a capture overrun once put it 4 samples off (lag 481 -> 477; the measurements after it averaged
/// 3.4 samples from the one that decided). Fed that, speexdsp relearns the echo path from
/// scratch: ERLE falls from 10-14 dB to 0-1.6 dB for seconds. Armed by the chain where such a gap may have
/// moved the alignment (a capture gap; the reference tap aligning afresh), before the canceller sees the
/// first frames of far-end sound after it, this check asks the adapted filter itself which whole-sample shift
/// of the reference, up to `maxSlip` either way, predicts the mic best: per shift s, the least-squares
/// residual of the mic against the filter's prediction y moved by s (mic(n) against y(n − s)). A frame
/// decides once the best shift explains the mic (its residual `Alignment.slipDecisiveShare` of the mic, 6 dB, or less;
/// before the echo arrives, or over a talker, it does not, and the next frame is asked, up to `maxFrames`);
/// a shift that leaves `Alignment.slipShare` of the residual of none and of each neighbouring shift (6 dB) or less is
/// the slip, and the caller moves the reference by it and keeps the filter. Shifts one beyond `maxSlip` are
/// measured too, so a slip is a peak. The real slips of the tests stand 9-14 dB clear (11-14 dB against
/// 0-2 at every other shift). The sweep's answers (Benchmarks/aec/barge_in_sweep.py, resampled 24 -> 48
/// -> 16 kHz through a non-linear loudspeaker) put the echo between two samples, where a shift of one
/// looked 3.2 dB better on one frame (14.5 against 11.3 dB); over a low voice's echo (espeak-ng pitch 10)
/// the prediction improved smoothly with the shift (8.7, 13.5, 16.0 dB at 0, 1, 2): a filter learnt on
/// other sounds, not a slip.
///
/// The prediction uses `taps` taps of the filter from `lead` before its peak (the direct path and the
/// early room), enough to tell a sample's shift in the speech band. Allocation-free after init;
/// realtime-safe. One thread.
final class ReferenceSlipCheck {
    /// Owns every buffer below.
    private let buffers = BufferStore()
    static let maxSlip = 4
    static let searched = maxSlip + 1
    static let taps = 1024
    static let lead = 32
    static let maxFrames = 8

    let frameSize: Int
    private let impulse: UnsafeMutableBufferPointer<Int32>
    /// The aligned reference as the canceller gets it, the last `historyMask + 1` samples (ring).
    private let history: UnsafeMutablePointer<Float>
    private let historyMask: Int
    private var written = 0
    private let predicted: UnsafeMutablePointer<Float>
    /// Per shift (index s + `searched`): Σ mic(n) y(n − s) and Σ y(n − s)², over the frame.
    private let cross: UnsafeMutablePointer<Double>
    private let power: UnsafeMutablePointer<Double>
    private var micEnergy: Double = 0
    private var frames = 0
    private var first = 0
    private(set) var isArmed = false

    init(frameSize: Int, impulseResponseLength: Int) {
        self.frameSize = frameSize
        impulse = buffers.takeBuffer(impulseResponseLength, 0)
        var capacity = 1
        while capacity < impulseResponseLength + 2 * frameSize { capacity <<= 1 }
        historyMask = capacity - 1
        history = buffers.take(capacity, 0)
        predicted = buffers.take(frameSize, 0)
        cross = buffers.takeUninitialized(2 * Self.searched + 1)
        power = buffers.takeUninitialized(2 * Self.searched + 1)
    }

    /// Every frame, once its aligned reference is final: what the canceller gets (or would get).
    func record(_ reference: UnsafeBufferPointer<Int16>) {
        for i in 0..<frameSize { history[(written + i) & historyMask] = Float(reference[i]) }
        written += frameSize
    }

    /// The last recorded frame is replaced by `reference`, read `slip` samples further back: the history
    /// then holds the reference as moved, so a later check predicts from what the canceller was given.
    func replaceLastFrame(with reference: UnsafeBufferPointer<Int16>, slip: Int) {
        written -= frameSize + slip
        record(reference)
    }

    /// Checks the next frames of far-end sound, with the filter as adapted now.
    func arm() {
        isArmed = true
        frames = 0
    }

    func disarm() { isArmed = false }

    /// One frame of far-end sound while armed, after `record`: `mic` (`frameSize` samples) against the
    /// prediction of `echo`'s filter (as it was at the first such frame). Returns nil until decided, then the
    /// slip in samples (the echo lies that much later than the filter expects; 0: none) and disarms.
    func observe(_ echo: EchoCanceller, mic: UnsafeBufferPointer<Int16>) -> Int? {
        guard isArmed else { return nil }
        if frames == 0 {
            echo.impulseResponse(into: impulse)
            var peak = 0
            var loudest: Int32 = 0
            for k in 0..<impulse.count {
                let v = impulse[k] == .min ? Int32.max : abs(impulse[k])
                if v > loudest {
                    loudest = v
                    peak = k
                }
            }
            first = max(0, peak - Self.lead)
        }
        let last = min(impulse.count, first + Self.taps)
        let start = written - frameSize
        for n in 0..<frameSize {
            var y: Float = 0
            for k in first..<last { y += Float(impulse[k]) * history[(start + n - k) & historyMask] }
            predicted[n] = y
        }
        let m = Self.searched
        micEnergy = 0
        for s in 0...2 * m {
            cross[s] = 0
            power[s] = 0
        }
        for n in m..<(frameSize - m) {
            let x = Double(mic[n])
            micEnergy += x * x
            for s in -m...m {
                let y = Double(predicted[n - s])
                cross[s + m] += x * y
                power[s + m] += y * y
            }
        }
        frames += 1
        var best = 0
        var bestResidual = Double.infinity
        for s in -m...m where residual(s) < bestResidual {
            bestResidual = residual(s)
            best = s
        }
        guard micEnergy > 0, cross[best + m] > 0, bestResidual <= EchoControlTuning.Alignment.slipDecisiveShare * micEnergy else {
            if frames >= Self.maxFrames {
                isArmed = false
                return 0
            }
            return nil
        }
        isArmed = false
        guard best != 0, abs(best) <= Self.maxSlip, bestResidual <= EchoControlTuning.Alignment.slipShare * residual(0),
            bestResidual <= EchoControlTuning.Alignment.slipShare * residual(best - 1),
            bestResidual <= EchoControlTuning.Alignment.slipShare * residual(best + 1)
        else { return 0 }
        return best
    }

    /// The residual the least-squares gain leaves at shift `s`: Σ mic² − (Σ mic y)² / Σ y² (infinite where
    /// the prediction is silent).
    private func residual(_ s: Int) -> Double {
        let i = s + Self.searched
        return power[i] > 0 ? micEnergy - cross[i] * cross[i] / power[i] : .infinity
    }
}
