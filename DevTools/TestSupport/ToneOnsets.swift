/// Finds where tone bursts begin in a played recording (bursts of a few kHz after silence, as
/// `ToneBurstSignal` makes them), to the sample and below, whatever their level.
///
/// A burst is found at the first sample whose magnitude reaches `floor`; its own peak is the largest
/// magnitude in the following `peakWindow` samples, so a leveler's or volume's attenuation does not move
/// the onset. The onset is the zero crossing before the first sample reaching `fraction` of that peak,
/// linearly interpolated: a burst starting at phase 0 is placed on its first sample exactly.
public struct ToneOnsets: Sendable {
    /// Magnitude below which a sample counts as silence (64 ≈ −54 dBFS).
    public var floor: Int
    /// Share of the burst's peak that marks its first half-cycle.
    public var fraction: Double
    /// Samples after the first audible one that contain the burst's peak (20 ms at 48 kHz).
    public var peakWindow: Int
    /// After an onset, the next burst is looked for this many samples later (0.5 s at 48 kHz).
    public var minimumSpacing: Int

    public init(floor: Int = 64, fraction: Double = 0.25, peakWindow: Int = 960, minimumSpacing: Int = 24_000) {
        self.floor = floor
        self.fraction = fraction
        self.peakWindow = peakWindow
        self.minimumSpacing = minimumSpacing
    }

    /// Onsets as fractional sample indices into `samples` (one channel), in order.
    public func onsets(in samples: [Int16]) -> [Double] {
        var found: [Double] = []
        var index = 0
        while index < samples.count {
            guard let audible = samples[index...].firstIndex(where: { Int(magnitude($0)) >= floor }) else { break }
            let window = audible..<min(samples.count, audible + peakWindow)
            let peak = samples[window].map { Int(magnitude($0)) }.max() ?? 0
            let threshold = Int((Double(peak) * fraction).rounded(.up))
            let first = samples[window].firstIndex { Int(magnitude($0)) >= max(threshold, 1) } ?? audible
            found.append(zeroCrossing(before: first, in: samples))
            index = audible + minimumSpacing
        }
        return found
    }

    /// Walks back over the half-cycle that contains `index` to where it crossed zero.
    private func zeroCrossing(before index: Int, in samples: [Int16]) -> Double {
        let positive = samples[index] > 0
        var k = index
        while k > 0, samples[k - 1] != 0, (samples[k - 1] > 0) == positive { k -= 1 }
        guard k > 0 else { return Double(k) }
        // samples[k - 1] is zero or of the other sign, samples[k] of this one: zero lies between them.
        let before = Double(samples[k - 1]), after = Double(samples[k])
        return Double(k - 1) + (before == 0 ? 0 : -before / (after - before))
    }

    private func magnitude(_ sample: Int16) -> UInt16 { sample.magnitude }
}
