/// The runner's tasks of one kind (tool calls by call id, timers by id), each tagged with a token: a
/// finish report from a replaced or cancelled task is recognised as stale by its token. With
/// `awaitsCancelled`, cancelled tasks are kept until they report, so shutdown can wait for them.
struct OwnedTasks<Key: Hashable> {
    private struct Owned {
        var token: Int
        var task: Task<Void, Never>
    }

    private let awaitsCancelled: Bool
    private var nextToken = 0
    private var running: [Key: Owned] = [:]
    /// Cancelled tasks still winding down, by token.
    private var cancelled: [Int: Task<Void, Never>] = [:]

    init(awaitsCancelled: Bool) {
        self.awaitsCancelled = awaitsCancelled
    }

    var count: Int { running.count }

    /// Starts the task `make` builds with its token, replacing (cancelling) one with the same key.
    mutating func start(_ key: Key, _ make: (_ token: Int) -> Task<Void, Never>) {
        cancel(key)
        nextToken += 1
        running[key] = Owned(token: nextToken, task: make(nextToken))
    }

    mutating func cancel(_ key: Key) {
        guard let owned = running.removeValue(forKey: key) else { return }
        owned.task.cancel()
        if awaitsCancelled { cancelled[owned.token] = owned.task }
    }

    /// The task with `token` reported: `true` when it is the current one for `key` (now forgotten);
    /// `false` for a replaced or cancelled one.
    mutating func finished(_ key: Key, token: Int) -> Bool {
        if cancelled.removeValue(forKey: token) != nil { return false }
        guard running[key]?.token == token else { return false }
        running[key] = nil
        return true
    }

    /// Cancels every running task (they stay owned until `drain`).
    func cancelAll() {
        for owned in running.values { owned.task.cancel() }
    }

    /// Waits for every owned task (cancelled ones too) to end, and forgets them.
    mutating func drain() async {
        for owned in running.values { await owned.task.value }
        for task in cancelled.values { await task.value }
        running = [:]
        cancelled = [:]
    }
}
