import Glibc

@testable import AudioCore

/// Deterministic signals for the loudness tests, scaled to a loudness the product's meter reads.
enum LoudnessSignals {
    /// Noise with a pink-ish spectrum (white through Paul Kellet's economy filter), the same seed every run;
    /// a different seed per channel.
    static func pinkNoise(frames: Int, channels: Int, seed: UInt64 = 1) -> [Double] {
        var out = [Double](repeating: 0, count: frames * channels)
        for c in 0..<channels {
            var state = seed &* 6_364_136_223_846_793_005 &+ UInt64(c + 1) &* 1_442_695_040_888_963_407
            var (b0, b1, b2) = (0.0, 0.0, 0.0)
            for f in 0..<frames {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let white = Double(Int64(bitPattern: state) >> 11) / Double(1 << 52)
                b0 = 0.99765 * b0 + white * 0.0990460
                b1 = 0.96300 * b1 + white * 0.2965164
                b2 = 0.57000 * b2 + white * 1.0526913
                out[f * channels + c] = (b0 + b1 + b2 + white * 0.1848) * 0.05  // peaks well under full scale
            }
        }
        return out
    }

    static func sine(frames: Int, channels: Int, rate: Int, frequency: Double, amplitude: Double, onChannels: Set<Int>? = nil) -> [Double] {
        var out = [Double](repeating: 0, count: frames * channels)
        for f in 0..<frames {
            let v = amplitude * sin(2 * Double.pi * frequency * Double(f) / Double(rate))
            for c in 0..<channels where onChannels?.contains(c) ?? true { out[f * channels + c] = v }
        }
        return out
    }

    /// `signal` (full scale 1.0) as Int16, scaled so the product's meter reads `lufs` integrated.
    static func scaled(_ signal: [Double], to lufs: Double, format: AudioFormat, dualMono: Bool = false) -> [Int16] {
        let unit = int16(signal, gain: 1)
        let measured = integrated(unit, format: format, dualMono: dualMono)!
        return int16(signal, gain: pow(10, (lufs - measured) / 20))
    }

    static func int16(_ signal: [Double], gain: Double) -> [Int16] {
        signal.map { Int16(max(-32768, min(32767, ($0 * gain * 32768).rounded()))) }
    }

    static func integrated(_ samples: [Int16], format: AudioFormat, dualMono: Bool = false) -> Double? {
        var meter = LoudnessMeter(format: format, dualMono: dualMono, integrated: true)
        samples.withUnsafeBufferPointer { meter.process($0) }
        return meter.integratedLoudness
    }

    static func concatenate(_ parts: [[Int16]]) -> [Int16] { parts.flatMap { $0 } }
}
