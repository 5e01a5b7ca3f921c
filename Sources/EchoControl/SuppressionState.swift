/// What the residual echo suppressor did in a frame, for diagnostics (`jarvis-voice dsp --suppressor-trace`,
/// `Benchmarks/aec-real/residual_by_state.py`): whether the far end played without speech's gaps (music:
/// `SpeechLikeFarEnd.isSteady`) and whether the suppression eased for a talker.
public struct SuppressionState: Sendable, Equatable {
    public var farEndActive: Bool
    public var farEndSteady: Bool
    public var easedForTalker: Bool

    public init(farEndActive: Bool = false, farEndSteady: Bool = false, easedForTalker: Bool = false) {
        self.farEndActive = farEndActive
        self.farEndSteady = farEndSteady
        self.easedForTalker = easedForTalker
    }

    /// One trace character: `-` the far end silent; over a steady far end `M`, `m` where the suppression
    /// eased; over one with speech's gaps `S`, `s` where it eased.
    public var traceCharacter: UInt8 {
        guard farEndActive else { return UInt8(ascii: "-") }
        switch (farEndSteady, easedForTalker) {
        case (true, false): return UInt8(ascii: "M")
        case (true, true): return UInt8(ascii: "m")
        case (false, false): return UInt8(ascii: "S")
        case (false, true): return UInt8(ascii: "s")
        }
    }
}
