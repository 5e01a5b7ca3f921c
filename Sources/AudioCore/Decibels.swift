import Glibc

/// Conversions between linear amplitude gain and decibels (20·log10), and dBFS of Int16 levels.
public enum Decibels {
    /// Below this, a level is reported as this many dB instead of -infinity (keeps logs and
    /// comparisons finite). -120 dB is far under the 16-bit noise floor (about -96 dB).
    public static let floor: Float = -120

    /// Amplitude gain for `decibels` (0 dB = 1.0, -20 dB = 0.1).
    public static func gain(_ decibels: Float) -> Float {
        decibels <= floor ? 0 : powf(10, decibels / 20)
    }

    /// Decibels of an amplitude gain, clamped at `floor`.
    public static func decibels(gain: Float) -> Float {
        gain <= 0 ? floor : max(floor, 20 * log10f(gain))
    }

    /// dBFS of a sample magnitude, with full scale = 32768 (so a full-scale square wave is 0 dBFS and a
    /// full-scale sine reads -3.01 dBFS RMS, the AES17 convention without the sine correction).
    public static func dBFS(_ magnitude: Float) -> Float {
        decibels(gain: magnitude / 32768)
    }
}
