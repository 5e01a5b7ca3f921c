/// The capture chain's per-frame verdict on who is talking, for the barge-in decision.
public struct NearEndActivity: Sendable, Equatable {
    /// The reference carried sound within the echo tail: echo is expected in the mic.
    public var farEndActive: Bool
    /// Debounced: someone near the device is talking (while the far end plays: the canceller's output
    /// stands well above the predicted residual echo in enough bands; while it is silent: above the room's
    /// floor, the quietest it has been over the last 1.5 s).
    public var nearEndSpeech: Bool
    /// Possible near-end speech, sooner: someone may be starting to talk (the same evidence in fewer bands, and only while
    /// the far end sounds like speech, whose residual does not fool it as music's does); on whenever
    /// `nearEndSpeech` is. Enough to pause the assistant, never to stop it.
    public var possibleNearEndSpeech: Bool
    /// The canceller's output over the predicted residual echo plus the room's floor in the speech bands, dB
    /// (diagnostic).
    public var nearToEchoDB: Float

    public init(
        farEndActive: Bool = false, nearEndSpeech: Bool = false, possibleNearEndSpeech: Bool? = nil,
        nearToEchoDB: Float = 0
    ) {
        self.farEndActive = farEndActive
        self.nearEndSpeech = nearEndSpeech
        self.possibleNearEndSpeech = possibleNearEndSpeech ?? nearEndSpeech
        self.nearToEchoDB = nearToEchoDB
    }
}
