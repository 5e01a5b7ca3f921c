import SpeexDSP

/// After a gap in the streams (a capture overrun, a playback underrun, a device reopened), the devices
/// start again at a new sub-sample phase, and in about half the restarts the reference comes back a whole
/// sample off the echo (`XrunAlignmentTests`: 28 of 60). Fed that, speexdsp relearns the echo path from
/// scratch: ERLE falls from 10-14 dB to 0-1.6 dB for seconds. Before the canceller sees the first frames
/// of far-end sound after such a gap, this check asks the adapted filter itself which whole-sample shift
/// of the reference, up to `maxSlip` either way, predicts the mic best: per shift s, the least-squares
/// residual of the mic against the filter's prediction y moved by s (mic(n) against y(n − s)), summed over
/// `decisionFrames` frames. A shift that leaves under half the residual of none (3 dB) is the slip; the
/// caller moves the reference by it and keeps the filter.
///
/// The prediction uses `taps` taps of the filter from `lead` before its peak (the direct path and the
/// early room), enough to tell a sample's shift in the speech band. Allocation-free after init;
/// realtime-safe. One thread.
final class ReferenceSlipCheck {
    static let maxSlip = 2
    static let taps = 1024
    static let lead = 32
    static let decisionFrames = 1
    /// The best shift must leave at most this share of the residual that no shift leaves.
    static let residualShare: Double = 0.5

    let frameSize: Int
    private let impulse: UnsafeMutableBufferPointer<Int32>
    /// The aligned reference as the canceller gets it, the last `historyMask + 1` samples (ring).
    private let history: UnsafeMutablePointer<Float>
    private let historyMask: Int
    private var written = 0
    private let predicted: UnsafeMutablePointer<Float>
    /// Per shift (index s + maxSlip): Σ mic(n) y(n − s) and Σ y(n − s)², over the frames so far.
    private let cross: UnsafeMutablePointer<Double>
    private let power: UnsafeMutablePointer<Double>
    private var micEnergy: Double = 0
    private var frames = 0
    private var first = 0
    private(set) var isArmed = false

    init(frameSize: Int, impulseResponseLength: Int) {
        self.frameSize = frameSize
        impulse = .allocate(capacity: impulseResponseLength)
        impulse.initialize(repeating: 0)
        var capacity = 1
        while capacity < impulseResponseLength + 2 * frameSize { capacity <<= 1 }
        historyMask = capacity - 1
        history = .allocate(capacity: capacity)
        history.initialize(repeating: 0, count: capacity)
        predicted = .allocate(capacity: frameSize)
        predicted.initialize(repeating: 0, count: frameSize)
        cross = .allocate(capacity: 2 * Self.maxSlip + 1)
        power = .allocate(capacity: 2 * Self.maxSlip + 1)
    }

    deinit {
        impulse.deallocate(); history.deallocate(); predicted.deallocate(); cross.deallocate(); power.deallocate()
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
        micEnergy = 0
        for s in 0...2 * Self.maxSlip { cross[s] = 0; power[s] = 0 }
    }

    func disarm() { isArmed = false }

    /// One frame of far-end sound while armed, after `record`: `mic` (`frameSize` samples) against the
    /// prediction of `echo`'s filter. Returns nil until decided, then the slip in samples (the echo lies
    /// that much later than the filter expects; 0: none) and disarms.
    func observe(_ echo: EchoCanceller, mic: UnsafeBufferPointer<Int16>) -> Int? {
        guard isArmed else { return nil }
        if frames == 0 {
            echo.impulseResponse(into: impulse)
            var peak = 0
            var loudest: Int32 = 0
            for k in 0..<impulse.count {
                let v = impulse[k] == .min ? Int32.max : abs(impulse[k])
                if v > loudest { loudest = v; peak = k }
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
        let m = Self.maxSlip
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
        guard frames >= Self.decisionFrames else { return nil }
        isArmed = false
        // The residual the least-squares gain leaves per shift: Σ mic² − (Σ mic y)² / Σ y².
        var best = 0
        var bestResidual = Double.infinity, unmoved = Double.infinity
        for s in -m...m where power[s + m] > 0 {
            let residual = micEnergy - cross[s + m] * cross[s + m] / power[s + m]
            if s == 0 { unmoved = residual }
            if residual < bestResidual { bestResidual = residual; best = s }
        }
        guard best != 0, cross[best + m] > 0, bestResidual < Self.residualShare * unmoved else { return 0 }
        return best
    }
}
