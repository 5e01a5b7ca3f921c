/// A PCM stream shape: interleaved signed 16-bit little-endian samples.
public struct AudioFormat: Sendable, Hashable, CustomStringConvertible {
    public var sampleRate: Int
    public var channels: Int

    public init(sampleRate: Int, channels: Int) {
        precondition(sampleRate > 0 && channels > 0, "AudioFormat needs a positive rate and channel count")
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// The capture DSP chain's rate (echo cancellation and preprocessing).
    public static let processing = AudioFormat(sampleRate: 16_000, channels: 1)
    /// The only PCM format the Realtime API accepts.
    public static let realtime = AudioFormat(sampleRate: 24_000, channels: 1)

    public var bytesPerFrame: Int { channels * MemoryLayout<Int16>.size }

    /// Frames in `milliseconds` of audio, rounded down.
    public func frames(milliseconds: Int) -> Int { sampleRate * milliseconds / 1000 }

    /// Milliseconds covered by `frames`, rounded down.
    public func milliseconds(frames: Int) -> Int { frames * 1000 / sampleRate }

    public var description: String { "\(sampleRate) Hz, \(channels) ch, S16_LE" }
}
