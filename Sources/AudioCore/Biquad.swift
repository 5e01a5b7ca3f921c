/// One second-order IIR section (transposed direct form II, Double state: the 38 Hz high-pass's poles
/// sit close to the unit circle, where Float state drifts).
public struct Biquad: Sendable, Equatable {
    public var b0, b1, b2, a1, a2: Double
    private var z1 = 0.0, z2 = 0.0

    public init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
        (self.b0, self.b1, self.b2, self.a1, self.a2) = (b0, b1, b2, a1, a2)
    }

    @inline(__always)
    public mutating func process(_ x: Double) -> Double {
        let y = b0 * x + z1
        z1 = b1 * x - a1 * y + z2
        z2 = b2 * x - a2 * y
        return y
    }

    public mutating func reset() { (z1, z2) = (0, 0) }
}
