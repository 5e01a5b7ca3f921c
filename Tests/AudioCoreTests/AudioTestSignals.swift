import Glibc

@testable import AudioCore

/// Deterministic test signals.
enum AudioTestSignals {
    /// Interleaved sine, the same on every channel; `frequency` should divide the rate for exact RMS.
    static func sine(
        frames: Int, channels: Int, rate: Int = 48_000, frequency: Double = 1_000,
        amplitude: Double = 16_384
    ) -> [Int16] {
        var out = [Int16](repeating: 0, count: frames * channels)
        for f in 0..<frames {
            let v = Int16((amplitude * sin(2 * Double.pi * frequency * Double(f) / Double(rate))).rounded())
            for c in 0..<channels { out[f * channels + c] = v }
        }
        return out
    }

    static func constant(_ value: Int16, frames: Int, channels: Int) -> [Int16] {
        [Int16](repeating: value, count: frames * channels)
    }
}

extension Mixer {
    /// Renders `frames` frames in periods of `period` frames (tests only; allocates).
    func render(frames: Int, period: Int) -> [Int16] {
        var out = [Int16](repeating: 0, count: frames * format.channels)
        out.withUnsafeMutableBufferPointer { buffer in
            var done = 0
            while done < frames {
                let n = min(period, frames - done)
                render(
                    into: UnsafeMutableBufferPointer(
                        rebasing: buffer[(done * format.channels)..<((done + n) * format.channels)]))
                done += n
            }
        }
        return out
    }

    @discardableResult
    func write(_ samples: [Int16], to channel: MixerChannel) -> Int {
        samples.withUnsafeBufferPointer { write($0, to: channel) }
    }
}

/// RMS in dBFS of frames `range` of interleaved `samples`.
func rmsDBFS(_ samples: [Int16], channels: Int, frames range: Range<Int>) -> Float {
    samples.withUnsafeBufferPointer {
        LevelMeter.rmsDBFS(UnsafeBufferPointer(rebasing: $0[(range.lowerBound * channels)..<(range.upperBound * channels)]))
    }
}
