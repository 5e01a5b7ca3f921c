import AudioCore
import Glibc
import Testing

@Suite struct PolyphaseResamplerTests {
    /// `seconds` of a sine at `frequency` Hz and `rate`, amplitude `peak`.
    static func sine(_ frequency: Double, rate: Int, seconds: Double, peak: Double = 16_000) -> [Int16] {
        (0..<Int(seconds * Double(rate))).map { Int16(peak * sin(2 * Double.pi * frequency * Double($0) / Double(rate))) }
    }

    /// Everything out of a resampler, fed in pieces of the given sizes (cycled), with `latency`
    /// samples of silence after the input to push the tail out.
    static func run(_ r: PolyphaseResampler, _ input: [Int16], pieces: [Int], outputRoom: Int = 4_096) -> [Int16] {
        var output: [Int16] = []
        var scratch = [Int16](repeating: 0, count: outputRoom)
        let padded = input + [Int16](repeating: 0, count: r.inputLatency)
        var at = 0, piece = 0
        while at < padded.count {
            let n = min(pieces[piece % pieces.count], padded.count - at)
            piece += 1
            var fed = 0
            while fed < n {
                let (consumed, produced) = padded[(at + fed)..<(at + n)].withUnsafeBufferPointer { input in
                    scratch.withUnsafeMutableBufferPointer { r.process(input: input, output: $0) }
                }
                output += scratch[0..<produced]
                fed += consumed
                if consumed == 0 && produced == 0 {
                    Issue.record("no progress")
                    return output
                }
            }
            at += n
        }
        // what the history still holds once all input is in
        while true {
            let produced = scratch.withUnsafeMutableBufferPointer { r.process(input: UnsafeBufferPointer(start: nil, count: 0), output: $0).produced }
            if produced == 0 { break }
            output += scratch[0..<produced]
        }
        return output
    }

    /// The level in dB of `frequency` in `samples` (one-bin DFT over whole periods), relative to a
    /// full-scale-16000 sine.
    static func level(of frequency: Double, in samples: ArraySlice<Int16>, rate: Int) -> Double {
        var re = 0.0, im = 0.0
        for (i, s) in samples.enumerated() {
            let w = 2 * Double.pi * frequency * Double(i) / Double(rate)
            re += Double(s) * cos(w)
            im += Double(s) * sin(w)
        }
        let amplitude = 2 * (re * re + im * im).squareRoot() / Double(samples.count)
        return 20 * log10(max(amplitude, 1e-9) / 16_000)
    }

    @Test func tableRatiosOnlyForWhatSpeexInterpolates() throws {
        let cd = try #require(PolyphaseResampler(inputRate: 44_100, outputRate: 48_000, quality: 3))
        #expect(cd.phaseCount == 160)
        #expect(cd.inputLatency == 24)
        #expect(try #require(PolyphaseResampler(inputRate: 24_000, outputRate: 48_000, quality: 5)).phaseCount == 2)
        #expect(PolyphaseResampler(inputRate: 44_100, outputRate: 48_001, quality: 3) == nil, "a 48001-phase table is too big")
        #expect(PolyphaseResampler(inputRate: 44_100, outputRate: 48_000, quality: 11) == nil)
        #expect(PolyphaseResampler(inputRate: 0, outputRate: 48_000, quality: 3) == nil)
    }

    @Test func aToneKeepsItsLevelAndTheRatioItsLength() throws {
        let r = try #require(PolyphaseResampler(inputRate: 44_100, outputRate: 48_000, quality: 3))
        r.skipZeros()
        let input = Self.sine(1_000, rate: 44_100, seconds: 1)
        let output = Self.run(r, input, pieces: [441])
        #expect(abs(output.count - 48_000) <= 1, "\(output.count) samples")
        // 0.5 s from the middle: whole periods of 1 kHz at 48 kHz (48 samples each)
        let level = Self.level(of: 1_000, in: output[12_000..<36_000], rate: 48_000)
        #expect(abs(level) < 0.05, "1 kHz at \(level) dB")
        // what is not the tone: the residual after removing the fitted sine, under -70 dB
        let expected = Self.sine(1_000, rate: 48_000, seconds: 1)
        var error = 0.0, signal = 0.0
        for i in 12_000..<36_000 {
            error += pow(Double(output[i]) - Double(expected[i]), 2)
            signal += pow(Double(expected[i]), 2)
        }
        let snr = 10 * log10(signal / error)
        #expect(snr > 70, "SNR \(snr) dB against the ideal 48 kHz tone (skipZeros aligns the first sample)")
    }

    @Test func whatLiesAboveTheBandIsRemoved() throws {
        // 21.5 kHz is past speex quality 3's cutoff (0.917 of 22.05 kHz): at 48 kHz its image would sit at 26.6 kHz,
        // folded to 21.4 kHz; the filter must take the tone itself down
        let r = try #require(PolyphaseResampler(inputRate: 44_100, outputRate: 48_000, quality: 3))
        r.skipZeros()
        let output = Self.run(r, Self.sine(21_500, rate: 44_100, seconds: 0.5), pieces: [1_000])
        let high = Self.level(of: 21_500, in: output[4_800..<19_200], rate: 48_000)
        let passband = Self.level(of: 1_000, in: output[4_800..<19_200], rate: 48_000)
        #expect(high < -20, "21.5 kHz at \(high) dB")
        #expect(passband < -90)
        // a downsampling table filters at the output's band: 23 kHz at 48 kHz cannot exist at 44.1 kHz
        let down = try #require(PolyphaseResampler(inputRate: 48_000, outputRate: 44_100, quality: 3))
        down.skipZeros()
        let folded = Self.run(down, Self.sine(23_000, rate: 48_000, seconds: 0.5), pieces: [960])
        let alias = Self.level(of: 44_100 - 23_000, in: folded[4_410..<17_640], rate: 44_100)
        #expect(alias < -60, "23 kHz folded to 21.1 kHz at \(alias) dB")
    }

    @Test func piecesOfAnySizeGiveTheSameSamples() throws {
        let input = (0..<20_000).map { Int16(truncatingIfNeeded: ($0 &* 7_919) % 30_011 - 15_000) }
        func once(_ pieces: [Int], room: Int) throws -> [Int16] {
            let r = try #require(PolyphaseResampler(inputRate: 44_100, outputRate: 48_000, quality: 3))
            r.skipZeros()
            return Self.run(r, input, pieces: pieces, outputRoom: room)
        }
        let whole = try once([20_000], room: 30_000)
        #expect(try once([1, 7, 441, 3_000, 13], room: 5) == whole)
        #expect(try once([4_096], room: 97) == whole)
    }

    @Test func skipZerosAlignsAnImpulseAndResetForgetsTheHistory() throws {
        let r = try #require(PolyphaseResampler(inputRate: 24_000, outputRate: 48_000, quality: 5))
        r.skipZeros()
        var impulse = [Int16](repeating: 0, count: 200)
        impulse[0] = 16_000
        let out = Self.run(r, impulse, pieces: [200])
        #expect(out.firstIndex(of: out.max()!) == 0, "the impulse's peak comes first: \(Array(out.prefix(4)))")
        let delayed = try #require(PolyphaseResampler(inputRate: 24_000, outputRate: 48_000, quality: 5))
        let late = Self.run(delayed, impulse, pieces: [200])
        #expect(late.firstIndex(of: late.max()!) == 2 * delayed.inputLatency, "without skipZeros: the filter's delay")
        // reset: the same input gives the same output again, nothing of the first run left
        r.reset()
        r.skipZeros()
        #expect(Self.run(r, impulse, pieces: [200]) == out)
    }
}
