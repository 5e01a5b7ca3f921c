import Glibc

/// A sample-accurate gain transition applied per frame to interleaved Int16 audio.
///
/// `ramp(to:frames:shape:)` moves the gain from its current value to `target` over exactly `frames`
/// frames: the k-th frame after the call (k = 1...frames) gets the k-th step, the last one exactly the
/// target, however the audio is split into buffers. Every channel of a frame gets the same gain, and the
/// gain changes every frame, so there is no zipper noise: at a 100 ms ramp at 48 kHz a full-scale
/// signal moves at most ~16 LSB per frame because of the gain change.
///
/// Shape: `.decibel` (the default) is linear in dB, i.e. geometric in amplitude: equal loudness steps
/// per unit time, so a duck to -20 dB sounds like an even fade instead of "nothing, then a sudden drop"
/// (a linear-amplitude ramp spends 90 % of its time in the top 10 dB). It cannot start or end at
/// silence, so a ramp from or to a gain below -100 dB falls back to `.linear`, which is also the right
/// shape for short de-click fades.
///
/// Value type with no storage: every method is realtime-safe (no allocation, locks or calls that
/// may block).
public struct GainRamp: Sendable, Equatable {
    public enum Shape: Sendable, Hashable {
        /// Straight line in amplitude.
        case linear
        /// Straight line in decibels (geometric in amplitude).
        case decibel
    }

    /// Gains are clamped to this range (+24 dB); more is a bug, not a volume.
    public static let maximumGain: Float = 16

    /// The gain of the most recently processed frame (the start point of the next ramp).
    public var gain: Float { Float(current) }
    /// Where the gain is heading (equal to `gain` when not ramping).
    public private(set) var target: Float
    /// Frames left until `gain == target`.
    public private(set) var remainingFrames: Int = 0
    public var isRamping: Bool { remainingFrames > 0 }

    private var current: Double
    private var step: Double = 0  // added per frame (linear) or multiplied (decibel)
    private var geometric = false

    public init(gain: Float = 1) {
        let g = Self.clamp(gain)
        current = Double(g)
        target = g
    }

    /// Starts a transition from the current gain. `frames <= 0` jumps.
    public mutating func ramp(to newTarget: Float, frames: Int, shape: Shape = .decibel) {
        let t = Self.clamp(newTarget)
        target = t
        guard frames > 0, Double(t) != current else {
            current = Double(t)
            remainingFrames = 0
            return
        }
        remainingFrames = frames
        let silent = 1e-5  // -100 dB
        if shape == .decibel, current > silent, Double(t) > silent {
            geometric = true
            step = pow(Double(t) / current, 1 / Double(frames))
        } else {
            geometric = false
            step = (Double(t) - current) / Double(frames)
        }
    }

    /// Sets the gain at once (for the very first frame of a stream, or tests).
    public mutating func jump(to gain: Float) { ramp(to: gain, frames: 0) }

    /// Advances one frame and returns its gain.
    @inline(__always)
    public mutating func next() -> Float {
        if remainingFrames > 0 {
            remainingFrames -= 1
            if remainingFrames == 0 {
                current = Double(target)
            } else if geometric {
                current *= step
            } else {
                current += step
            }
        }
        return Float(current)
    }

    /// Advances `frames` frames without audio (a channel that is dry keeps its ramp on time).
    public mutating func skip(frames: Int) {
        guard frames > 0, remainingFrames > 0 else { return }
        if frames >= remainingFrames {
            remainingFrames = 0
            current = Double(target)
        } else {
            remainingFrames -= frames
            current = geometric ? current * pow(step, Double(frames)) : current + step * Double(frames)
        }
    }

    /// Applies the gain in place to interleaved samples, saturating at the Int16 range.
    public mutating func apply(to samples: UnsafeMutableBufferPointer<Int16>, channels: Int) {
        let frames = samples.count / channels
        if !isRamping {
            let g = Float(current)
            if g == 1 { return }
            if g == 0 {
                samples.update(repeating: 0)
                return
            }
        }
        var i = 0
        for _ in 0..<frames {
            let g = next()
            for _ in 0..<channels {
                samples[i] = Int16(clamping: Self.scaled(samples[i], g))
                i += 1
            }
        }
    }

    /// Adds `source` times the gain into a wider accumulator (the mixer saturates once, after summing
    /// every channel, so two loud channels that cancel do not clip on the way).
    public mutating func mix(
        _ source: UnsafeBufferPointer<Int16>, into accumulator: UnsafeMutableBufferPointer<Int32>, channels: Int
    ) {
        let frames = min(source.count, accumulator.count) / channels
        if !isRamping {
            let g = Float(current)
            if g == 0 { return }
            if g == 1 {
                for i in 0..<(frames * channels) { accumulator[i] &+= Int32(source[i]) }
                return
            }
        }
        var i = 0
        for _ in 0..<frames {
            let g = next()
            for _ in 0..<channels {
                accumulator[i] &+= Self.scaled(source[i], g)
                i += 1
            }
        }
    }

    @inline(__always)
    static func scaled(_ sample: Int16, _ gain: Float) -> Int32 {
        Int32((Float(sample) * gain).rounded(.toNearestOrEven))
    }

    static func clamp(_ g: Float) -> Float {
        g.isNaN ? 0 : min(max(g, 0), maximumGain)
    }
}
