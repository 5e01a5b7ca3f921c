import FoundationEssentials
import NIOCore
import NIOHTTP1

/// term-llm's `POST {base}/v1/responses` (streaming subset): without `previous_response_id` the input
/// replaces the session's history; with it, the id must be the session's latest (`resp_msg_N`) and
/// the turn continues. Frames are `id: <seq>\nevent: <name>\ndata: <json>\n\n`, then `data: [DONE]`.
struct TermLLMResponsesRoute {
    let standIn: TermLLMStandIn
    let connection: TermLLMConnection

    private struct Request: Decodable {
        var input: String?
        var stream: Bool?
        var previousResponseID: String?
        enum CodingKeys: String, CodingKey {
            case input, stream
            case previousResponseID = "previous_response_id"
        }
    }

    func handle(
        _ head: HTTPRequestHead, body: String, outbound: TermLLMConnection.Outbound,
        isClosed: @escaping @Sendable () -> Bool
    ) async throws -> Bool {
        guard let request = try? JSONDecoder().decode(Request.self, from: Data(body.utf8)), let input = request.input else {
            try await connection.writeError(outbound, status: 400, message: "input is required", type: "invalid_request_error")
            return true
        }
        let headerSession = head.headers.first(name: "session_id")
        enum Claim {
            case ok(String, TermLLMTurnPlan, String)
            case error(Int, String)
        }
        let claim: Claim = standIn.state.withLock { state in
            var sessionID = headerSession ?? TermLLMStandIn.mintSessionID()
            if let previous = request.previousResponseID {
                guard let owner = state.sessions.first(where: { $0.value.lastResponseID == previous })?.key else {
                    let stale = state.sessions.values.contains { _ in previous.hasPrefix("resp_msg_") }
                    return stale
                        ? .error(409, "previous_response_id \"\(previous)\" is stale") : .error(400, "previous_response_id \"\(previous)\" not found")
                }
                if let headerSession, headerSession != owner { return .error(409, "session_id does not match previous_response_id") }
                sessionID = owner
            }
            var session = state.sessions[sessionID] ?? .init()
            if session.busy { return .error(409, "session is busy processing another request") }
            if request.previousResponseID == nil {
                state.historyReplacements += session.messages.isEmpty ? 0 : 1
                session.messages = []
            }
            let userTurn = session.messages.filter { $0.role == "user" }.count + 1
            let context = TermLLMTurnContext(sessionID: sessionID, query: input, userTurn: userTurn, history: session.messages)
            session.messages.append(TermLLMStoredMessage(role: "user", content: input))
            session.busy = true
            state.sessions[sessionID] = session
            return .ok(sessionID, state.planner(context), state.options.model)
        }
        guard case .ok(let sessionID, let plan, let model) = claim else {
            if case .error(let status, let message) = claim {
                try await connection.writeError(
                    outbound, status: status, message: message,
                    type: status == 409 ? "conflict_error" : "invalid_request_error")
            }
            return true
        }
        var text = ""
        var finished = false
        defer {
            standIn.state.withLock { state in
                state.sessions[sessionID]?.busy = false
                state.sessions[sessionID]?.messages.append(TermLLMStoredMessage(role: "assistant", content: text, interrupted: !finished))
                if finished { state.completedRuns += 1 } else { state.interruptedRuns += 1 }
            }
        }
        let (runID, durableID, pingInterval) = standIn.state.withLock { state -> (String, String, Duration) in
            state.responseCounter += 1
            return ("resp_\(state.responseCounter)x", "resp_msg_\(state.responseCounter * 2)", state.options.pingInterval)
        }
        let pacer = Pacer(closed: isClosed, pingInterval: pingInterval)
        do {
            try await pacer.wait(plan.headerDelay, pings: false, outbound: outbound)
            if let failure = plan.httpError {
                finished = true
                try await connection.writeError(outbound, status: failure.status, message: failure.message, type: failure.type)
                return true
            }
            try await connection.writeSSEHead(outbound, sessionID: sessionID, extra: [("X-Response-Id", runID)])
            pacer.start()
            var sequence = 0
            func event(_ name: String, _ payload: [String: GoJSON]) async throws {
                sequence += 1
                var object = payload
                object["response_id"] = .string(runID)
                object["sequence_number"] = .int(sequence)
                try await connection.writeText(outbound, "id: \(sequence)\nevent: \(name)\ndata: \(GoJSON.object(object).serialized)\n\n")
            }
            try await event(
                "response.created",
                [
                    "response": .object([
                        "id": .string(runID), "object": .string("response"),
                        "model": .string(model), "status": .string("in_progress")
                    ])
                ])
            for step in plan.steps {
                switch step {
                case .text(let piece):
                    text += piece
                    try await event("response.output_text.delta", ["output_index": .int(0), "delta": .string(piece)])
                case .toolCall(let name, let arguments):
                    try await event(
                        "response.output_item.added",
                        [
                            "item": .object([
                                "type": .string("function_call"),
                                "name": .string(name), "arguments": .string(arguments)
                            ])
                        ])
                case .heartbeat:
                    try await event("response.heartbeat", ["call_id": .string("call_1"), "tool_name": .string("tool")])
                case .sleep(let duration): try await pacer.wait(duration, pings: true, outbound: outbound)
                case .silence(let duration): try await pacer.wait(duration, pings: false, outbound: outbound)
                case .hold(let gate, let timeout): try await pacer.wait(timeout, pings: true, outbound: outbound, until: gate)
                case .error(let message, let type):
                    finished = true
                    try await event(
                        "response.failed",
                        [
                            "response": .object(["id": .string(runID), "status": .string("failed")]),
                            "error": .object(["message": .string(message), "type": .string(type)])
                        ])
                    try await connection.writeText(outbound, "data: [DONE]\n\n")
                    try await outbound.write(.end(nil))
                    return true
                case .dropConnection: return false
                }
            }
            standIn.state.withLock { $0.sessions[sessionID]?.lastResponseID = durableID }
            finished = true
            try await event(
                "response.completed",
                [
                    "response": .object([
                        "id": .string(durableID), "object": .string("response"),
                        "model": .string(model), "status": .string("completed")
                    ])
                ])
            try await connection.writeText(outbound, "data: [DONE]\n\n")
            try await outbound.write(.end(nil))
            return true
        } catch {
            return false
        }
    }
}
