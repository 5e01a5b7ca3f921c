import Glibc

/// A test signal for timing playback: bursts of a sine tone (e.g. 50 ms of 1 kHz every second) in digital
/// silence, S16LE interleaved, each burst starting at phase 0 on a known frame so `ToneOnsets` places it
/// exactly. Frames are produced in any slices, so a feeder can pace it out in real time.
public struct ToneBurstSignal: Sendable {
    public var sampleRate: Int
    public var channels: Int
    public var frequency: Double
    /// Frames per burst and from one burst's start to the next.
    public var burstFrames: Int
    public var periodFrames: Int
    /// Frame of the first burst.
    public var firstBurstFrame: Int
    /// Peak, full scale 1.
    public var amplitude: Double

    public init(
        sampleRate: Int = 48_000, channels: Int = 2, frequency: Double = 1_000, burstSeconds: Double = 0.05,
        periodSeconds: Double = 1, firstBurstSeconds: Double = 0.5, amplitude: Double = 0.5
    ) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.frequency = frequency
        burstFrames = Int((burstSeconds * Double(sampleRate)).rounded())
        periodFrames = Int((periodSeconds * Double(sampleRate)).rounded())
        firstBurstFrame = Int((firstBurstSeconds * Double(sampleRate)).rounded())
        self.amplitude = amplitude
    }

    /// The frame at which burst `n` (from 0) starts.
    public func burstStartFrame(_ n: Int) -> Int { firstBurstFrame + n * periodFrames }

    /// Interleaved samples of frames `start..<start + count`.
    public func samples(from start: Int, count: Int) -> [Int16] {
        var out = [Int16](repeating: 0, count: count * channels)
        let scale = amplitude * 32_767
        for f in 0..<count {
            let offset = start + f - firstBurstFrame
            guard offset >= 0 else { continue }
            let inBurst = offset % periodFrames
            guard inBurst < burstFrames else { continue }
            let phase = 2 * Double.pi * frequency * Double(inBurst) / Double(sampleRate)
            let value = Int16((scale * sin(phase)).rounded())
            for c in 0..<channels { out[f * channels + c] = value }
        }
        return out
    }

    /// The signal as little-endian bytes, for a pipe.
    public func bytes(from start: Int, count: Int) -> [UInt8] {
        samples(from: start, count: count).flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
    }
}
