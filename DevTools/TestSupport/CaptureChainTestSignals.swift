import AudioCore
import Glibc

/// Deterministic synthetic scenes for the capture chain tests: speech-like far end (bursts of
/// coloured noise with syllable-rate envelope), a short decaying room response, near-end bursts.
public enum CaptureChainTestSignals {
    /// Uniform white noise in -1...1 from a 64-bit LCG (the same sequence for the same seed).
    public struct White {
        public var state: UInt64
        public init(seed: UInt64) { state = seed }
        public mutating func next() -> Float {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(Int64(bitPattern: state) >> 40) / Float(1 << 23)
        }
        /// A sample of uniform noise at `rms`.
        public mutating func sample(rms: Float) -> Int16 { Int16(next() * rms * 1.73) }
    }

    /// A sample saturated to 16 bits, as a converter would.
    public static func clip(_ x: Float) -> Int16 { Int16(max(-32768, min(32767, x))) }

    /// A pure delay: `push` returns the sample pushed `lag` samples earlier (silence before that).
    public struct DelayLine {
        private var ring: [Int16]
        private var index = 0
        public init(lag: Int) { ring = [Int16](repeating: 0, count: lag + 1) }
        public mutating func push(_ sample: Int16) -> Int16 {
            ring[index] = sample
            index = index + 1 == ring.count ? 0 : index + 1
            return ring[index]
        }
    }

    public static func farEnd(_ n: Int, seed: UInt64) -> [Float] {
        var noise = White(seed: seed)
        var y1: Float = 0
        var out = [Float](repeating: 0, count: n)
        for i in 0..<n {
            let white = noise.next()
            y1 = 0.6 * y1 + white
            let t = Float(i) / 16000
            let env = max(0, sinf(2 * .pi * 3.1 * t)) * (0.6 + 0.4 * sinf(2 * .pi * 0.37 * t))
            out[i] = 6000 * env * y1
        }
        return out
    }

    public static func room(_ taps: Int) -> [Float] {
        var h = [Float](repeating: 0, count: taps)
        var white = White(seed: 99)
        h[20] = 0.6
        for i in 21..<taps {
            let r = white.next()
            h[i] = 0.15 * r * expf(-Float(i) / 300)
        }
        return h
    }

    /// echo(t) = (h * far)(t * (1 + ppm)) delayed by `echoDelay` samples relative to the reference.
    public static func scene(seconds: Double, echoDelay: Int, ppm: Double, nearEnd: Bool) -> (mic: [Int16], reference: [Int16]) {
        let n = Int(seconds * 16000)
        let far = farEnd(n + 2 * abs(echoDelay) + 100, seed: 5)
        let h = room(400)
        var played = [Float](repeating: 0, count: n)
        for i in 0..<n {
            let pos = Double(i) * (1 + ppm * 1e-6)
            let k = Int(pos), frac = Float(pos - Double(k))
            // Cubic (Catmull-Rom) interpolation is plenty for a tiny drift in a test.
            let p0 = k > 0 ? far[k - 1] : 0, p1 = far[k], p2 = far[k + 1], p3 = far[k + 2]
            played[i] = p1 + 0.5 * frac * (p2 - p0 + frac * (2 * p0 - 5 * p1 + 4 * p2 - p3 + frac * (3 * (p1 - p2) + p3 - p0)))
        }
        var mic = [Int16](repeating: 0, count: n)
        var ref = [Int16](repeating: 0, count: n)
        for i in 0..<n {
            var e: Float = 0
            let j0 = i - echoDelay
            for k in stride(from: 20, to: h.count, by: 1) where j0 - k >= 0 && j0 - k < n { e += h[k] * played[j0 - k] }
            var near: Float = 0
            if nearEnd, i > n / 2, i < n / 2 + 16000 { near = 1500 * sinf(Float(i) * 0.09) * max(0, sinf(Float(i) * 0.002)) }
            mic[i] = clip(e + near)
            ref[i] = clip(far[i])
        }
        return (mic, ref)
    }

    public static func energy(_ x: ArraySlice<Int16>) -> Double { x.reduce(0) { $0 + Double($1) * Double($1) } }

    /// The loud runs of a 24 kHz uplink (start, length in samples), seen through 10 ms windows: a run
    /// starts above -30 dBFS and ends below -45 dBFS (one still loud at the end runs to the last window).
    public static func loudRuns(_ uplink: [Int16]) -> [(start: Int, length: Int)] {
        var runs: [(start: Int, length: Int)] = []
        var loudFrom: Int?
        var start = 0
        while start < uplink.count - 240 {
            let level = uplink[start..<(start + 240)].withUnsafeBufferPointer { LevelMeter.rmsDBFS($0) }
            if level > -30, loudFrom == nil { loudFrom = start }
            if level < -45, let from = loudFrom {
                runs.append((from, start - from))
                loudFrom = nil
            }
            start += 240
        }
        if let from = loudFrom { runs.append((from, start - from)) }
        return runs
    }
}
