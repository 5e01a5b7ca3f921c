import Glibc

/// Loudness per ITU-R BS.1770-4 / EBU R128 of interleaved Int16 audio, fed in any buffer sizes:
/// K-weighting per channel, mean square over 100 ms sub-blocks, and from them the momentary (400 ms)
/// and short-term (3 s) loudness, the integrated loudness (absolute gate −70 LUFS, relative gate −10 LU),
/// and the same gating over a sliding window for a level follower. Storage is allocated at init only.
public struct LoudnessMeter: Sendable {
    public static let absoluteGate = -70.0
    public static let relativeGate = -10.0
    /// Momentary blocks the sliding gated loudness may look back on (30: the short-term window's 3 s).
    public static let maxGatedBlocks = 30

    public let sampleRate: Int
    public let channels: Int
    /// Frames in a 100 ms sub-block (the 400 ms gating blocks overlap by 75 %: one per sub-block).
    public let subBlockFrames: Int
    /// 400 ms blocks measured so far (one per completed sub-block from the fourth on).
    public private(set) var momentaryBlocks = 0

    private var shelves: [Biquad]
    private var highPasses: [Biquad]
    private let weights: [Double]
    private var sum = 0.0
    private var framesInSubBlock = 0
    /// The last 30 sub-blocks' weighted mean squares (a ring; `subBlocks` counts all of them).
    private var subBlockPower: [Double]
    private var subBlocks = 0
    /// The last `maxGatedBlocks` momentary blocks' powers (a ring indexed by `momentaryBlocks`).
    private var blockPower: [Double]
    /// Integrated loudness: momentary blocks counted in 0.02 LU bins from −70 to +5 LUFS (bounded
    /// memory; the bin centre's error is under 0.01 LU). Empty when not asked for.
    private var histogram: [Int]
    private static let binWidth = 0.02
    private static let histogramTop = 5.0

    /// - Parameters:
    ///   - dualMono: a mono source that will play on both channels of a stereo output counts twice (it is
    ///     3 dB louder there than BS.1770 measures one channel).
    ///   - integrated: keep the histogram `integratedLoudness` needs.
    public init(sampleRate: Int, channels: Int, dualMono: Bool = false, integrated: Bool = false) {
        precondition(sampleRate > 0 && channels > 0, "LoudnessMeter needs a positive rate and channel count")
        self.sampleRate = sampleRate
        self.channels = channels
        subBlockFrames = max(1, (sampleRate + 5) / 10)
        let (shelf, highPass) = KWeighting.filters(sampleRate: sampleRate)
        shelves = Array(repeating: shelf, count: channels)
        highPasses = Array(repeating: highPass, count: channels)
        // BS.1770 weights L, R and C 1.0 and the surrounds 1.41; decoded streams reach us as mono or stereo.
        weights = Array(repeating: channels == 1 && dualMono ? 2 : 1, count: channels)
        subBlockPower = Array(repeating: 0, count: 30)
        blockPower = Array(repeating: 0, count: Self.maxGatedBlocks)
        histogram = integrated ? Array(repeating: 0, count: Int((Self.histogramTop - Self.absoluteGate) / Self.binWidth) + 1) : []
    }

    public init(format: AudioFormat, dualMono: Bool = false, integrated: Bool = false) {
        self.init(sampleRate: format.sampleRate, channels: format.channels, dualMono: dualMono, integrated: integrated)
    }

    /// LUFS of a weighted mean square (full scale = 1.0).
    public static func loudness(power: Double) -> Double {
        power > 0 ? -0.691 + 10 * log10(power) : -Double.infinity
    }

    static func power(loudness: Double) -> Double { pow(10, (loudness + 0.691) / 10) }

    /// Forgets everything measured (a new stream).
    public mutating func reset() {
        for c in 0..<channels {
            shelves[c].reset()
            highPasses[c].reset()
        }
        sum = 0
        framesInSubBlock = 0
        subBlocks = 0
        momentaryBlocks = 0
        for i in histogram.indices { histogram[i] = 0 }
    }

    /// Measures `samples` (interleaved, `channels` per frame; a trailing partial frame is ignored).
    public mutating func process(_ samples: UnsafeBufferPointer<Int16>) {
        let frames = samples.count / channels
        var frame = 0
        while frame < frames {
            // Up to the end of the current sub-block, with the filters in locals (no array access per sample).
            let run = min(frames - frame, subBlockFrames - framesInSubBlock)
            let part = UnsafeBufferPointer(rebasing: samples[(frame * channels)..<((frame + run) * channels)])
            switch channels {
            case 1: sum += weights[0] * Self.filteredEnergy(part, &shelves[0], &highPasses[0], stride: 1)
            case 2:
                sum += weights[0] * Self.filteredEnergy(part, &shelves[0], &highPasses[0], stride: 2)
                sum += weights[1] * Self.filteredEnergy(UnsafeBufferPointer(rebasing: part.dropFirst()), &shelves[1], &highPasses[1], stride: 2)
            default:
                for c in 0..<channels {
                    sum +=
                        weights[c]
                        * Self.filteredEnergy(UnsafeBufferPointer(rebasing: part.dropFirst(c)), &shelves[c], &highPasses[c], stride: channels)
                }
            }
            framesInSubBlock += run
            frame += run
            if framesInSubBlock == subBlockFrames { completeSubBlock() }
        }
    }

    /// Σ y² of one channel (every `stride`-th sample from the first) through its K-weighting.
    @inline(__always)
    private static func filteredEnergy(_ samples: UnsafeBufferPointer<Int16>, _ shelfState: inout Biquad, _ highPassState: inout Biquad, stride: Int)
        -> Double
    {
        var shelf = shelfState, highPass = highPassState
        var energy = 0.0
        let scale = 1.0 / 32768
        var i = 0
        while i < samples.count {
            let y = highPass.process(shelf.process(Double(samples[i]) * scale))
            energy += y * y
            i += stride
        }
        (shelfState, highPassState) = (shelf, highPass)
        return energy
    }

    private mutating func completeSubBlock() {
        subBlockPower[subBlocks % subBlockPower.count] = sum / Double(subBlockFrames)
        subBlocks += 1
        sum = 0
        framesInSubBlock = 0
        guard subBlocks >= 4 else { return }
        let power = meanPower(ofLast: 4)
        blockPower[momentaryBlocks % Self.maxGatedBlocks] = power
        momentaryBlocks += 1
        let loudness = Self.loudness(power: power)
        if !histogram.isEmpty, loudness > Self.absoluteGate {
            let bin = min(histogram.count - 1, Int((loudness - Self.absoluteGate) / Self.binWidth))
            histogram[bin] += 1
        }
    }

    private func meanPower(ofLast count: Int) -> Double {
        var total = 0.0
        for k in 1...count { total += subBlockPower[(subBlocks - k) % subBlockPower.count] }
        return total / Double(count)
    }

    /// The last 400 ms, in LUFS; nil before 400 ms have been measured.
    public var momentaryLoudness: Double? { subBlocks >= 4 ? Self.loudness(power: meanPower(ofLast: 4)) : nil }

    /// The last 3 s, in LUFS; nil before 3 s have been measured.
    public var shortTermLoudness: Double? { subBlocks >= 30 ? Self.loudness(power: meanPower(ofLast: 30)) : nil }

    /// BS.1770's gating over the last `blocks` momentary blocks (fewer while fewer exist): the mean of
    /// those above −70 LUFS and above that mean −10 LU. Nil when none passes (silence, a gap).
    public func gatedLoudness(lastBlocks blocks: Int = maxGatedBlocks) -> Double? {
        let count = min(blocks, Self.maxGatedBlocks, momentaryBlocks)
        guard count > 0 else { return nil }
        let absolute = Self.power(loudness: Self.absoluteGate)
        var total = 0.0, passed = 0
        for k in 1...count {
            let p = blockPower[(momentaryBlocks - k) % Self.maxGatedBlocks]
            if p > absolute { (total, passed) = (total + p, passed + 1) }
        }
        guard passed > 0 else { return nil }
        let relative = total / Double(passed) * pow(10, Self.relativeGate / 10)
        (total, passed) = (0, 0)
        for k in 1...count {
            let p = blockPower[(momentaryBlocks - k) % Self.maxGatedBlocks]
            if p > absolute && p > relative { (total, passed) = (total + p, passed + 1) }
        }
        return passed > 0 ? Self.loudness(power: total / Double(passed)) : nil
    }

    /// The integrated loudness of everything measured since init or `reset` (needs `integrated: true`);
    /// nil when no block passes the gates.
    public var integratedLoudness: Double? {
        let centre = { (bin: Int) in Self.power(loudness: Self.absoluteGate + (Double(bin) + 0.5) * Self.binWidth) }
        var total = 0.0, passed = 0
        for (bin, count) in histogram.enumerated() where count > 0 {
            total += centre(bin) * Double(count)
            passed += count
        }
        guard passed > 0 else { return nil }
        let relativeLoudness = Self.loudness(power: total / Double(passed)) + Self.relativeGate
        (total, passed) = (0, 0)
        for (bin, count) in histogram.enumerated() where count > 0 {
            let power = centre(bin)
            guard Self.loudness(power: power) > relativeLoudness else { continue }
            total += power * Double(count)
            passed += count
        }
        return passed > 0 ? Self.loudness(power: total / Double(passed)) : nil
    }
}
