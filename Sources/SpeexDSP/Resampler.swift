/// speexdsp's resampler for mono Int16 with integer rates and fractional ratio changes (for clock
/// drift: a ratio of 1 000 050 / 1 000 000 consumes 50 ppm more input than it produces).
///
/// Not thread-safe: one thread at a time (`@unchecked Sendable` only for handing it to the realtime thread).
public final class Resampler: @unchecked Sendable {
    public private(set) var inputRate: Int
    public private(set) var outputRate: Int
    public let quality: Int
    /// input/output = ratioNumerator/ratioDenominator.
    public private(set) var ratioNumerator: UInt32
    public private(set) var ratioDenominator: UInt32
    let handle: ResamplerHandle

    /// - Parameter quality: 0 (fastest) ... 10 (best); 3 is speex's VoIP default, 5 its desktop default.
    public convenience init(inputRate: Int, outputRate: Int, quality: Int = 5) throws(SpeexDSPError) {
        try self.init(
            ratioNumerator: UInt32(inputRate), ratioDenominator: UInt32(outputRate),
            inputRate: inputRate, outputRate: outputRate, quality: quality)
    }

    /// A resampler whose ratio (input samples per output sample) is `ratioNumerator/ratioDenominator`;
    /// the rates are nominal (speex uses them for reporting only).
    public init(ratioNumerator: UInt32, ratioDenominator: UInt32, inputRate: Int, outputRate: Int, quality: Int = 5) throws(SpeexDSPError) {
        guard (0...10).contains(quality) else {
            throw SpeexDSPError(function: "speex_resampler_init_frac", message: "quality \(quality) is outside 0...10")
        }
        guard inputRate > 0, outputRate > 0, ratioNumerator > 0, ratioDenominator > 0 else {
            throw SpeexDSPError(function: "speex_resampler_init_frac", message: "rates and ratio must be positive")
        }
        handle = try ResamplerHandle(
            channels: 1, ratioNumerator: ratioNumerator, ratioDenominator: ratioDenominator,
            inputRate: UInt32(inputRate), outputRate: UInt32(outputRate), quality: quality)
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.quality = quality
        self.ratioNumerator = ratioNumerator
        self.ratioDenominator = ratioDenominator
    }

    /// Changes the ratio without resetting the filter history (smooth). Realtime-safe when the
    /// resampler was already in speex's interpolating mode (any ratio that does not reduce to small
    /// integers, e.g. created with a 1e7 denominator) and the filter length does not grow.
    public func setRatio(numerator: UInt32, denominator: UInt32) throws(SpeexDSPError) {
        guard numerator > 0, denominator > 0 else {
            throw SpeexDSPError(function: "speex_resampler_set_rate_frac", message: "ratio \(numerator)/\(denominator) must be positive")
        }
        try handle.setRateFraction(
            numerator: numerator, denominator: denominator,
            inputRate: UInt32(inputRate), outputRate: UInt32(outputRate))
        ratioNumerator = numerator
        ratioDenominator = denominator
    }

    /// Changes nominal integer rates (ratio inputRate/outputRate).
    public func setRates(input: Int, output: Int) throws(SpeexDSPError) {
        guard input > 0, output > 0 else {
            throw SpeexDSPError(function: "speex_resampler_set_rate_frac", message: "rates \(input)/\(output) must be positive")
        }
        try handle.setRateFraction(numerator: UInt32(input), denominator: UInt32(output), inputRate: UInt32(input), outputRate: UInt32(output))
        inputRate = input
        outputRate = output
        ratioNumerator = UInt32(input)
        ratioDenominator = UInt32(output)
    }

    /// Resamples as much of `input` as fits in `output`. Returns (consumed input samples, written
    /// output samples). Realtime-safe.
    @inline(__always)
    public func process(input: UnsafeBufferPointer<Int16>, output: UnsafeMutableBufferPointer<Int16>) -> (consumed: Int, produced: Int) {
        guard let out = output.baseAddress, output.count > 0 else { return (0, 0) }
        let r = handle.process(input: input.baseAddress, inputCount: input.count, output: out, outputCapacity: output.count)
        return (r.0, r.1)
    }

    /// Filter delay in input samples.
    public var inputLatency: Int { handle.inputLatency }
    /// Filter delay in output samples.
    public var outputLatency: Int { handle.outputLatency }
    /// Drops the filter's initial delay so the first output sample matches the first input sample.
    public func skipZeros() { handle.skipZeros() }
    /// Clears the filter history.
    public func reset() { handle.reset() }
}
