import Glibc

/// The user volume: a level 0.0...1.0 mapped to decibel steps.
/// Level 0 is mute; otherwise dB = (level − 1) × `rangeDecibels`, rounded to `stepDecibels`, never
/// below −range + step (so any level above 0 stays audible), and gain = 10^(dB/20).
/// With the defaults (40 dB range, 2 dB steps): 1.0 → 0 dB (gain 1), 0.5 → −20 dB (0.1),
/// 0.75 → −10 dB (0.316), 0.01 → −38 dB (0.0126). The quantized level is 1 + dB/range.
public struct MediaVolume: Sendable, Equatable, Codable {
    public static let defaultRangeDecibels = 40.0
    public static let defaultStepDecibels = 2.0

    /// The quantized level, 0.0...1.0.
    public var level: Double
    /// nil when muted.
    public var decibels: Double?

    public init(level requested: Double, rangeDecibels: Double = defaultRangeDecibels, stepDecibels: Double = defaultStepDecibels) {
        let range = max(1, rangeDecibels)
        let step = min(max(0.1, stepDecibels), range)
        let clamped = requested.isFinite ? min(max(requested, 0), 1) : 1
        guard clamped > 0 else {
            level = 0
            decibels = nil
            return
        }
        let raw = (clamped - 1) * range
        let stepped = (raw / step).rounded() * step
        let dB = min(0, max(stepped, -range + step))
        decibels = dB
        level = (range + dB) / range  // not 1 + dB / range: 0.3, not 0.30000000000000004
    }

    /// Linear gain for the mixer's media channel.
    public var gain: Float {
        guard let decibels else { return 0 }
        return Float(pow(10, decibels / 20))
    }
}
