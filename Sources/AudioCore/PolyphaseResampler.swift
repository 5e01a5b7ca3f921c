import Glibc

/// A mono Int16 sample-rate converter for a fixed rational ratio, in direct polyphase form: one row of
/// precomputed coefficients per output phase, so each output sample is one dot product (SIMD).
///
/// It exists for the ratios speexdsp serves by interpolating between the rows of a coarser table on
/// every sample (four products per tap), 44.1 → 48 kHz (160 phases) above all: that was half of what
/// playing radio cost on a Pi. The filter is a Kaiser-windowed sinc of speexdsp's length and bandwidth
/// for the same quality, so the two sound alike; each row is normalized to unit gain at DC.
///
/// Not thread-safe: one thread at a time. `process` never allocates, so it may run on a producer
/// thread beside the realtime ones.
public final class PolyphaseResampler: MonoResampler, @unchecked Sendable {
    /// Filter design per speexdsp quality 0...10: taps, bandwidth when upsampling and when
    /// downsampling (fractions of the lower rate's Nyquist frequency), Kaiser window beta.
    static let designs: [(taps: Int, upBandwidth: Double, downBandwidth: Double, beta: Double)] = [
        (8, 0.860, 0.830, 6), (16, 0.880, 0.850, 6), (32, 0.910, 0.882, 6), (48, 0.917, 0.895, 8),
        (64, 0.940, 0.921, 8), (80, 0.940, 0.922, 10), (96, 0.945, 0.940, 10), (128, 0.950, 0.940, 10),
        (160, 0.960, 0.940, 10), (192, 0.968, 0.940, 12), (256, 0.975, 0.945, 12)
    ]
    /// The largest table (phases × taps coefficients) built; other ratios are left to speexdsp.
    public static let maxCoefficients = 65_536

    public let inputRate: Int
    public let outputRate: Int
    /// Coefficients per output sample (a multiple of 8, zero-padded).
    let taps: Int
    /// Output phases per period (L) and input samples per period (M): output/input = L/M.
    let phases: Int
    let step: Int
    private let table: UnsafeMutablePointer<Float>
    /// Input history in Float: `line[start..<count]` is unread; a window starts at `start`.
    private let line: UnsafeMutablePointer<Float>
    private let lineCapacity: Int
    private var start = 0
    private var count = 0
    private var phase = 0
    private var processed = false

    /// Filter delay in input samples (as speexdsp's `input_latency`).
    public var inputLatency: Int { taps / 2 }
    /// Output phases per period: speexdsp interpolates above its table's oversampling (16 at most).
    public var phaseCount: Int { phases }

    /// nil when the reduced ratio needs a table above `maxCoefficients` or the arguments are invalid.
    public init?(inputRate: Int, outputRate: Int, quality: Int) {
        guard inputRate > 0, outputRate > 0, Self.designs.indices.contains(quality) else { return nil }
        var a = inputRate, b = outputRate
        while b != 0 { (a, b) = (b, a % b) }
        let design = Self.designs[quality]
        phases = outputRate / a
        step = inputRate / a
        taps = (design.taps + 7) / 8 * 8
        // a window may move by at most its length per output (else input would be skipped unread)
        guard phases <= Self.maxCoefficients / taps, step <= phases * taps else { return nil }
        self.inputRate = inputRate
        self.outputRate = outputRate
        table = .allocate(capacity: phases * taps)
        lineCapacity = taps * 2 + 4_096
        line = .allocate(capacity: lineCapacity)
        let upsampling = outputRate > inputRate
        // cutoff in cycles per input sample: a fraction of the lower rate's Nyquist frequency
        let cutoff = 0.5 * (upsampling ? design.upBandwidth : design.downBandwidth * Double(outputRate) / Double(inputRate))
        Self.fill(table, phases: phases, taps: taps, cutoff: cutoff, beta: design.beta)
        reset()
    }

    deinit {
        table.deallocate()
        line.deallocate()
    }

    /// Row p holds g(p/L + taps/2 − 1 − k) for k in 0..<taps: the response at the output's
    /// fractional position p/L after the window's centre.
    private static func fill(_ table: UnsafeMutablePointer<Float>, phases: Int, taps: Int, cutoff: Double, beta: Double) {
        let half = Double(taps) / 2
        let i0Beta = besselI0(beta)
        for p in 0..<phases {
            var row = [Double](repeating: 0, count: taps)
            for k in 0..<taps {
                let t = Double(p) / Double(phases) + half - 1 - Double(k)
                let x = 2 * cutoff * t
                let sinc = x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
                let r = t / half
                let window = abs(r) < 1 ? besselI0(beta * (1 - r * r).squareRoot()) / i0Beta : 0
                row[k] = 2 * cutoff * sinc * window
            }
            let sum = row.reduce(0, +)
            for k in 0..<taps { table[p * taps + k] = Float(row[k] / sum) }
        }
    }

    /// The modified Bessel function of the first kind, order 0 (its power series).
    private static func besselI0(_ x: Double) -> Double {
        var sum = 1.0, term = 1.0, k = 1.0
        while term > 1e-12 * sum {
            term *= (x / (2 * k)) * (x / (2 * k))
            sum += term
            k += 1
        }
        return sum
    }

    /// Converts as much of `input` as the history holds and `output` has room for. Returns (consumed
    /// input samples, written output samples); what was consumed but not yet converted stays inside.
    public func process(input: UnsafeBufferPointer<Int16>, output: UnsafeMutableBufferPointer<Int16>) -> (consumed: Int, produced: Int) {
        processed = true
        var consumed = 0, produced = 0
        while true {
            produced += convert(into: output, from: produced)
            if produced == output.count || consumed == input.count { break }
            compact()
            let take = min(input.count - consumed, lineCapacity - count)
            if take == 0 { break }
            for i in 0..<take { line[count + i] = Float(input[consumed + i]) }
            count += take
            consumed += take
        }
        return (consumed, produced)
    }

    /// Clears the history: silence before the next input, the filter's delay ahead of it.
    public func reset() {
        line.initialize(repeating: 0, count: lineCapacity)
        start = 0
        count = taps - 1
        phase = 0
        processed = false
    }

    /// Before the first `process` after `reset`: drops the filter's delay, so the first output sample
    /// is at the first input sample (as speexdsp's `skip_zeros`).
    public func skipZeros() {
        guard !processed else { return }
        count = taps / 2 - 1
    }

    /// Every output the history allows, into `output[from...]`.
    private func convert(into output: UnsafeMutableBufferPointer<Int16>, from: Int) -> Int {
        var written = 0
        let vectors = taps / 8
        while from + written < output.count && start + taps <= count {
            let coefficients = UnsafeRawPointer(table + phase * taps)
            let window = UnsafeRawPointer(line + start)
            var sum = SIMD8<Float>()
            for v in 0..<vectors {
                let x = window.loadUnaligned(fromByteOffset: v * 32, as: SIMD8<Float>.self)
                let h = coefficients.loadUnaligned(fromByteOffset: v * 32, as: SIMD8<Float>.self)
                // multiply, then add: addProduct's fused form is a libm call per lane on baseline x86-64
                sum += x * h
            }
            let value = sum.sum()
            output[from + written] = Int16(clamping: Int(value < 0 ? value - 0.5 : value + 0.5))
            written += 1
            phase += step
            start += phase / phases
            phase %= phases
        }
        return written
    }

    /// Moves the unread history to the front of the line, making room for more input.
    private func compact() {
        guard start > 0 else { return }
        let keep = count - start
        if keep > 0 { UnsafeMutableRawPointer(line).copyMemory(from: line + start, byteCount: keep * MemoryLayout<Float>.stride) }
        count = keep
        start = 0
    }
}
