import Realtime

/// The runner's side of the Realtime connection: whether a session is wanted, the generation that tags
/// every connect and link outcome (older ones are stale), the open link, the connect attempt and the
/// retry in flight, and how many attempts failed in a row. Decides, from typed values only, which
/// outcomes count and when a failed connect is retried.
struct RealtimeConnectionState {
    /// The engine asked for a session (`connectRealtime`) and has not dropped it since.
    private(set) var wanted = false
    /// Bumped on every connect and disconnect; outcomes of older attempts are ignored.
    private(set) var generation = 0
    private(set) var link: (any RealtimeLink)?
    /// Ends the connect attempt in flight (a child of the runner) when finished.
    private(set) var connectAbandon: AsyncStream<Never>.Continuation?
    private(set) var retryTask: Task<Void, Never>?
    /// Failed connects since the engine asked or a session was created; sets the next retry's delay.
    private(set) var failedAttempts = 0
    /// Server frames that could not be read, and events of unknown type (for status).
    private(set) var malformedEvents = 0
    private(set) var unknownEvents = 0

    var isOpen: Bool { link != nil }
    /// Neither open nor being opened: a connect may start.
    var isClosed: Bool { link == nil && connectAbandon == nil }

    /// The engine wants a session: a fresh count of attempts; `true` when a connect must start now.
    mutating func want() -> Bool {
        wanted = true
        failedAttempts = 0
        return isClosed
    }

    /// Starts a connect attempt; its outcomes carry the returned generation.
    mutating func beginConnect(abandon: AsyncStream<Never>.Continuation) -> Int {
        generation += 1
        connectAbandon = abandon
        return generation
    }

    /// A connect of `attempt` failed: `true` when it still counts (the current one, still wanted).
    mutating func connectFailed(_ attempt: Int) -> Bool {
        guard attempt == generation, wanted else { return false }
        connectAbandon = nil
        return true
    }

    /// A link of `attempt` opened: `true` when it becomes the session (else the caller closes it).
    mutating func opened(_ attempt: Int, _ newLink: any RealtimeLink) -> Bool {
        guard attempt == generation, wanted, link == nil else { return false }
        connectAbandon?.finish()
        connectAbandon = nil
        link = newLink
        return true
    }

    /// An event or the end of the link of `attempt` belongs to the open session.
    func isCurrentLink(_ attempt: Int) -> Bool { attempt == generation && link != nil }

    /// Takes the open link away (it ended or is being closed).
    mutating func takeLink() -> (any RealtimeLink)? {
        defer { link = nil }
        return link
    }

    /// A session was created: failures before it no longer slow the next reconnect.
    mutating func sessionCreated() { failedAttempts = 0 }

    /// A server frame that could not be read; returns how many so far.
    mutating func noteMalformedEvent() -> Int {
        malformedEvents += 1
        return malformedEvents
    }

    mutating func noteUnknownEvent() { unknownEvents += 1 }

    /// Whether the retry of `attempt` may connect now: still wanted, nothing open or opening, and the
    /// engine still waits in `connecting`.
    mutating func retryDue(_ attempt: Int, engineState: ConversationState) -> Bool {
        guard attempt == generation, wanted, isClosed, engineState == .connecting else { return false }
        retryTask = nil
        return true
    }

    /// After a failure the engine has heard about: the attempt number to schedule a retry for, or nil
    /// when none is due (not retryable, no longer wanted, the engine moved on, or one is scheduled).
    mutating func nextRetry(retryable: Bool, engineState: ConversationState) -> Int? {
        guard retryable, wanted, engineState == .connecting, isClosed, retryTask == nil else { return nil }
        failedAttempts += 1
        return failedAttempts
    }

    mutating func scheduled(_ retry: Task<Void, Never>) { retryTask = retry }

    /// No session wanted any more: abandons a connect in progress and the retry; returns the open link
    /// for the caller to close.
    mutating func drop() -> (any RealtimeLink)? {
        wanted = false
        generation += 1
        failedAttempts = 0
        retryTask?.cancel()
        retryTask = nil
        connectAbandon?.finish()  // a link that opens anyway is closed as soon as it arrives (stale generation)
        connectAbandon = nil
        return takeLink()
    }
}
