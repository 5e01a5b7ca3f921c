/// The response in flight, as one phase, plus what outlives it: a `response.create` deferred until it is
/// done, the responses whose audio was stopped, and tool outputs still owed an answer.
struct ResponseTracker: Sendable, Equatable {
    enum Phase: Sendable, Equatable {
        /// No response in flight.
        case none
        /// `response.create` sent (or the server said one is running); its `response.created` has not arrived.
        /// `isAnswer`: it will speak tool results (an answer), not a filler or a direct reply.
        case requested(isAnswer: Bool)
        /// `response.created` seen, until `response.done`.
        case running(id: String?, isAnswer: Bool)
    }

    private(set) var phase: Phase = .none
    /// A `response.create` wanted as soon as the active response is done; `true` if it answers tool outputs.
    private(set) var deferredIsAnswer: Bool?
    private(set) var stopped = StoppedResponses()
    /// Tool outputs were sent while the user was talking; the response after their turn answers them.
    var answerOwed = false

    /// From `response.create` sent (or `response.created` seen) until `response.done`.
    var isActive: Bool { phase != .none }

    var id: String? {
        if case .running(let id, _) = phase { id } else { nil }
    }

    /// Asks for a response: `true` when `response.create` goes out now; with one active it is deferred.
    mutating func request(isAnswer: Bool) -> Bool {
        guard !isActive else {
            deferredIsAnswer = (deferredIsAnswer ?? false) || isAnswer
            return false
        }
        phase = .requested(isAnswer: isAnswer)
        return true
    }

    /// A `response.create` went out unconditionally (an announcement with its own options).
    mutating func sent(isAnswer: Bool) {
        phase = .requested(isAnswer: isAnswer)
    }

    /// The server refused a `response.create` because another response is running: ask again when done.
    mutating func serverHasActiveResponse() {
        var isAnswer = false
        switch phase {
        case .none: phase = .requested(isAnswer: false)
        case .requested(let requested):
            isAnswer = requested
            phase = .requested(isAnswer: false)
        case .running: break
        }
        deferredIsAnswer = (deferredIsAnswer ?? false) || isAnswer
    }

    /// `response.created`: `false` when it belongs to a response stopped before its id was known (cancel it).
    mutating func created(id: String?) -> Bool {
        let isAnswer = if case .requested(let requested) = phase { requested } else { false }
        phase = .running(id: id, isAnswer: isAnswer)
        return !stopped.claimUnidentified(as: id)
    }

    /// `response.done`: nothing is in flight any more (a deferred request stays until `takeDeferred`).
    mutating func done() {
        phase = .none
    }

    /// The deferred `response.create`, if one is wanted (whether it answers tool outputs); forgets it.
    mutating func takeDeferred() -> Bool? {
        defer { deferredIsAnswer = nil }
        return deferredIsAnswer
    }

    /// Stops the response in flight: its late audio and function calls are dropped. `false` if none was.
    mutating func stopCurrent() -> Bool {
        guard isActive else { return false }
        stopped.stop(id)
        return true
    }

    /// Stops the audio of a response known by id (the voice item being played).
    mutating func stop(responseID: String) {
        stopped.stop(responseID)
    }

    /// Gives up on the response in flight: stopped, forgotten, and no deferred request. `false` if none was.
    mutating func abandon() -> Bool {
        guard stopCurrent() else { return false }
        phase = .none
        deferredIsAnswer = nil
        return true
    }

    /// The response in flight was already stopped (its late audio is dropped).
    var currentIsDiscarded: Bool { stopped.unidentified || stopped.contains(id) }

    func isDiscarded(_ responseID: String?) -> Bool { stopped.contains(responseID) }

    /// Audio of `responseID` speaks the answer to tool outputs.
    func speaksAnswer(_ responseID: String?) -> Bool {
        guard case .running(let id, true) = phase else { return false }
        return id == nil || id == responseID
    }
}

/// Responses whose audio was stopped (barge-in, tap): their late deltas and function calls are dropped.
struct StoppedResponses: Sendable, Equatable {
    private var ids: Set<String> = []
    /// A response was stopped before its id was known: the next `response.created` is that one.
    private(set) var unidentified = false

    mutating func stop(_ id: String?) {
        if let id { ids.insert(id) } else { unidentified = true }
    }

    /// Takes the unidentified stop for the response just created; `true` if there was one.
    mutating func claimUnidentified(as id: String?) -> Bool {
        guard unidentified else { return false }
        unidentified = false
        if let id { ids.insert(id) }
        return true
    }

    func contains(_ id: String?) -> Bool {
        guard let id, !id.isEmpty else { return false }
        return ids.contains(id)
    }
}

/// Function calls remembered from `response.function_call_arguments.done` and the ones running.
struct ToolCallTracker: Sendable {
    struct Running: Sendable {
        var name: String
        var startedAt: EngineTime
    }

    var pending: [FunctionCallRecord] = []
    var running: [String: Running] = [:]

    mutating func remember(_ call: FunctionCallRecord) {
        guard running[call.callID] == nil, !pending.contains(where: { $0.callID == call.callID }) else { return }
        pending.append(call)
    }

    /// Removes and returns the pending calls of `responseID` (calls without a response id belong to any).
    mutating func takePending(for responseID: String?) -> [FunctionCallRecord] {
        let mine = pending.filter { $0.responseID == nil || $0.responseID == responseID || responseID == nil }
        pending.removeAll { call in mine.contains { $0.callID == call.callID } }
        return mine
    }
}

struct FunctionCallRecord: Sendable, Equatable {
    var responseID: String?
    var callID: String
    var name: String
    var arguments: String
}
