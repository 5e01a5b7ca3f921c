/// `say` callers waiting for their announcement's outcome, by id; each is answered exactly once.
struct SayWaiters {
    private var waiting: [Int: CheckedContinuation<SayOutcome, Never>] = [:]

    mutating func add(_ id: Int, _ reply: CheckedContinuation<SayOutcome, Never>) { waiting[id] = reply }

    /// Answers the caller of `id`, if it still waits.
    mutating func answer(_ id: Int, _ outcome: SayOutcome) {
        waiting.removeValue(forKey: id)?.resume(returning: outcome)
    }

    /// Answers everyone still waiting with a failure.
    mutating func failAll(_ reason: String) {
        for (_, reply) in waiting { reply.resume(returning: .failed(reason)) }
        waiting = [:]
    }
}
