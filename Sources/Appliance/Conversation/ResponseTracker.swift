/// The single active-response flag and what belongs to the response in flight.
struct ResponseTracker: Sendable {
    /// From `response.create` sent (or `response.created` seen) until `response.done`.
    var active = false
    var id: String?
    /// The current response speaks a tool result (answer), not a filler or direct reply.
    var isAnswer = false
    /// The next `response.created` will be an answer to tool outputs.
    var nextIsAnswer = false
    /// A `response.create` is wanted as soon as the active response is done.
    var createPending = false
    var pendingIsAnswer = false
    /// Responses whose audio was stopped (barge-in, tap): late deltas and their function calls are dropped.
    var discarded: Set<String> = []
    /// Tool outputs were sent while the user was talking; the response after their turn answers them.
    var answerOwed = false
    /// The stopped response had no id yet (its `response.created` had not arrived).
    var discardUnidentified = false

    mutating func discardCurrent() {
        if let id { discarded.insert(id) } else { discardUnidentified = true }
    }

    /// The response in flight was already stopped (its late audio is dropped).
    var currentIsDiscarded: Bool { discardUnidentified || (id.map { discarded.contains($0) } ?? false) }

    func isDiscarded(_ responseID: String?) -> Bool {
        guard let responseID, !responseID.isEmpty else { return false }
        return discarded.contains(responseID)
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
