import Glibc

/// A peak envelope follower: per frame, the largest magnitude across channels, smoothed by a one-pole
/// filter with separate attack and release time constants (the level reaches 1 - 1/e of a step in
/// that time). Used to measure ducking on the output and for level logs. Realtime-safe.
public struct EnvelopeFollower: Sendable {
    public let channels: Int
    /// The current envelope, linear (0...32768).
    public private(set) var envelope: Float = 0
    public var envelopeDBFS: Float { Decibels.dBFS(envelope) }

    private let attack: Float
    private let release: Float

    public init(format: AudioFormat, attackMilliseconds: Float = 1, releaseMilliseconds: Float = 20) {
        channels = format.channels
        attack = Self.coefficient(attackMilliseconds, rate: format.sampleRate)
        release = Self.coefficient(releaseMilliseconds, rate: format.sampleRate)
    }

    /// Processes one frame (`frame` points at its first sample) and returns the new envelope.
    @inline(__always)
    public mutating func process(frame: UnsafePointer<Int16>) -> Float {
        var m: Int32 = 0
        for c in 0..<channels { m = max(m, abs(Int32(frame[c]))) }
        let x = Float(m)
        let k = x > envelope ? attack : release
        envelope = x + k * (envelope - x)
        return envelope
    }

    /// Processes a buffer; the envelope after its last frame is in `envelope`.
    public mutating func process(_ samples: UnsafeBufferPointer<Int16>) {
        guard let base = samples.baseAddress else { return }
        for f in 0..<(samples.count / channels) { _ = process(frame: base + f * channels) }
    }

    /// Envelope in dBFS after every frame of `samples` (allocates; tests and offline analysis).
    public mutating func envelopeDBFS(of samples: [Int16]) -> [Float] {
        samples.withUnsafeBufferPointer { buffer in
            var out: [Float] = []
            out.reserveCapacity(buffer.count / channels)
            for f in 0..<(buffer.count / channels) {
                out.append(Decibels.dBFS(process(frame: buffer.baseAddress! + f * channels)))
            }
            return out
        }
    }

    static func coefficient(_ milliseconds: Float, rate: Int) -> Float {
        milliseconds <= 0 ? 0 : expf(-1000 / (milliseconds * Float(rate)))
    }
}
