/// How a started item's first moments went: what `play`, `station` and `podcast` answer with.
enum StartOutcome: Sendable {
    /// Its decoded audio reaches the output (or a short file played to its end).
    case audible
    /// It cannot play: the reason the journal gives too.
    case failed(String)
    /// Another command replaced or stopped it first.
    case superseded
}

extension MediaPlayer {
    /// The outcome of generation `generation`'s start, or nil when `limit` passes first (still connecting
    /// or buffering: it goes on trying, and says so in the journal if it gives up).
    func awaitStart(of generation: Int, limit: Duration) async -> StartOutcome? {
        if let started, started.generation == generation { return started.outcome }
        Task {
            try? await Task.sleep(for: limit)
            self.resumeStartWaiters(of: generation, with: nil)
        }
        return await withCheckedContinuation { startWaiters[generation, default: []].append($0) }
    }

    /// Records the first outcome of `generation` and tells whoever waits for it.
    func resolveStart(of generation: Int, _ outcome: StartOutcome) {
        guard started?.generation != generation else { return }
        started = (generation, outcome)
        resumeStartWaiters(of: generation, with: outcome)
    }

    private func resumeStartWaiters(of generation: Int, with outcome: StartOutcome?) {
        for waiter in startWaiters.removeValue(forKey: generation) ?? [] { waiter.resume(returning: outcome) }
    }
}
