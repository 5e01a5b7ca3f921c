/// A request to move a gain to `gain` over `milliseconds` (what the `Ducker` and volume control hand
/// to the `Mixer`).
public struct GainChange: Sendable, Hashable, CustomStringConvertible {
    public var gain: Float
    public var milliseconds: Int
    public var shape: GainRamp.Shape

    public init(gain: Float, milliseconds: Int, shape: GainRamp.Shape = .decibel) {
        self.gain = gain
        self.milliseconds = milliseconds
        self.shape = shape
    }

    public var description: String {
        "gain \(Decibels.decibels(gain: gain)) dB over \(milliseconds) ms"
    }
}
