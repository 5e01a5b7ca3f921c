/// How the owner's announcement (`ConversationRunner.say`) ended.
public enum SayOutcome: Sendable, Equatable {
    /// Its audio has been played out.
    case spoken
    /// It will not be spoken; one plain sentence says why (e.g. the Realtime API is unreachable).
    case failed(String)
}
