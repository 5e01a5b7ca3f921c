import Glibc

/// Tone detection in rendered audio (Goertzel power per window), to find which signal played when.
enum SignalAnalysis {
    /// Power of `frequency` in `samples` (24 kHz), normalised by length.
    static func power(_ samples: ArraySlice<Int16>, frequency: Double, sampleRate: Double = 24_000) -> Double {
        let coefficient = 2 * cos(2 * .pi * frequency / sampleRate)
        var s1 = 0.0
        var s2 = 0.0
        for sample in samples {
            let s0 = Double(sample) + coefficient * s1 - s2
            s2 = s1
            s1 = s0
        }
        let power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
        return power / Double(max(1, samples.count))
    }

    /// Milliseconds (in 10 ms windows) where `frequency` clearly dominates the other candidates.
    static func milliseconds(of frequency: Double, in samples: [Int16], others: [Double], window: Int = 240) -> Int {
        var windows = 0
        var start = 0
        while start + window <= samples.count {
            let slice = samples[start..<(start + window)]
            let target = power(slice, frequency: frequency)
            let rival = others.map { power(slice, frequency: $0) }.max() ?? 0
            if target > 1_000_000, target > 4 * rival { windows += 1 }
            start += window
        }
        return windows * window * 1000 / 24_000
    }
}

/// A tone with soft edges, 24 kHz mono.
func tone(milliseconds: Int, frequency: Double, amplitude: Double = 8_000) -> [Int16] {
    let count = 24 * milliseconds
    return (0..<count).map { i in
        let envelope = min(1, Double(i) / 240, Double(count - i) / 240)
        return Int16(amplitude * envelope * sin(Double(i) * 2 * .pi * frequency / 24_000))
    }
}
