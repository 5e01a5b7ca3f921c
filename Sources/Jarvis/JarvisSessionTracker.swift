/// The Jarvis conversation identity kept across turns and Realtime sessions: term-llm's session id
/// (minted by the server on the first turn) and, for the responses API, the id to chain with.
/// Forgotten after `idleReset` without a question, or on `reset()`.
public struct JarvisSessionTracker: Sendable, Equatable {
    public let idleReset: Duration
    public private(set) var sessionID: String?
    public private(set) var previousResponseID: String?
    private var lastUsed: Duration?

    public init(idleReset: Duration) {
        self.idleReset = idleReset
    }

    /// Drops the identity if it has been idle too long; returns whether it did.
    @discardableResult
    public mutating func expireIfIdle(now: Duration) -> Bool {
        guard let lastUsed, now - lastUsed >= idleReset, sessionID != nil || previousResponseID != nil else { return false }
        reset()
        return true
    }

    /// Records a use (any answered or failed turn the server saw).
    public mutating func touch(now: Duration) {
        lastUsed = now
    }

    public mutating func adopt(sessionID: String?, previousResponseID: String? = nil, now: Duration) {
        if let sessionID, !sessionID.isEmpty { self.sessionID = sessionID }
        if let previousResponseID, !previousResponseID.isEmpty { self.previousResponseID = previousResponseID }
        lastUsed = now
    }

    public mutating func reset() {
        sessionID = nil
        previousResponseID = nil
        lastUsed = nil
    }
}
