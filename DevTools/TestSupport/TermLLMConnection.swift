import FoundationEssentials
import NIOCore
import NIOHTTP1
import Synchronization

/// Serves one keep-alive connection for `TermLLMStandIn`.
struct TermLLMConnection {
    typealias Outbound = NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>

    let standIn: TermLLMStandIn
    let connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    private final class ClosedFlag: Sendable {
        let value = Atomic<Bool>(false)
    }

    private struct Disconnected: Error {}

    func serve() async {
        let closed = ClosedFlag()
        connection.channel.closeFuture.whenComplete { _ in closed.value.store(true, ordering: .releasing) }
        standIn.state.withLock { $0.openConnections += 1 }
        defer { standIn.state.withLock { $0.openConnections -= 1 } }
        try? await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            var body = ByteBuffer()
            for try await part in inbound {
                switch part {
                case .head(let received):
                    head = received
                    body.clear()
                case .body(var chunk):
                    body.writeBuffer(&chunk)
                case .end:
                    guard let request = head else { continue }
                    let keepOpen = try await handle(request, body: String(buffer: body), outbound: outbound, closed: closed)
                    if !keepOpen { return }
                }
            }
        }
    }

    // MARK: routing

    private func handle(_ head: HTTPRequestHead, body: String, outbound: Outbound, closed: ClosedFlag) async throws -> Bool {
        let recorded = TermLLMRecordedRequest(
            method: head.method.rawValue, path: head.uri,
            headers: head.headers.map { (name: $0.name, value: $0.value) }, body: body)
        let options = standIn.state.withLock { state -> TermLLMStandIn.Options in
            state.requests.append(recorded)
            return state.options
        }
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        let base = options.basePath
        guard base.isEmpty || path == base || path.hasPrefix(base + "/") else {
            try await writeSimple(
                outbound, status: 307, contentType: "text/html; charset=utf-8",
                body: "<a href=\"\(base)/\">Temporary Redirect</a>.\n\n", extra: [("Location", "\(base)/")])
            return true
        }
        let route = String(path.dropFirst(base.count))
        switch route {
        case "/healthz":
            // No auth needed; a valid bearer (case-sensitive "Bearer ") adds agent, version, capabilities.
            var health: [String: GoJSON] = ["status": .string("ok")]
            if head.headers.first(name: "authorization") == "Bearer \(options.token)" {
                health["agent"] = .string("jarvis")
                health["version"] = .string("0.0.0-standin")
                health["capabilities"] = .array([.string("web"), .string("api")])
            }
            try await writeSimple(
                outbound, status: 200, contentType: "application/json", body: GoJSON.object(health).serialized + "\n",
                version: false)
            return true
        case "/v1/chat/completions", "/v1/responses":
            guard head.method == .POST else {
                try await writeError(outbound, status: 405, message: "method not allowed", type: "invalid_request_error", extra: [("Allow", "POST")])
                return true
            }
            guard authorized(head.headers, token: options.token) else {
                try await writeError(outbound, status: 401, message: "invalid authentication credentials", type: "invalid_api_key", version: false)
                return true
            }
            let contentType = head.headers.first(name: "content-type")?.split(separator: ";").first.map {
                trimmed($0).lowercased()
            }
            guard contentType == "application/json" else {
                try await writeError(outbound, status: 415, message: "Content-Type must be application/json", type: "invalid_request_error")
                return true
            }
            if route == "/v1/responses" {
                return try await TermLLMResponsesRoute(standIn: standIn, connection: self)
                    .handle(head, body: body, outbound: outbound, isClosed: { closed.value.load(ordering: .acquiring) })
            }
            return try await chatCompletions(head, body: body, options: options, outbound: outbound, closed: closed)
        default:
            try await writeSimple(outbound, status: 404, contentType: "text/plain; charset=utf-8", body: "404 page not found\n")
            return true
        }
    }

    private func authorized(_ headers: HTTPHeaders, token: String) -> Bool {
        if let value = headers.first(name: "authorization") {
            let parts = trimmed(value).split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" {
                return trimmed(parts[1]) == token
            }
            return false
        }
        if let key = headers.first(name: "x-api-key") { return key == token }
        return false
    }

    private func trimmed(_ text: some StringProtocol) -> String {
        String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }

    // MARK: chat completions

    private struct ChatRequest: Decodable {
        struct Message: Decodable {
            var role: String
            var content: Content?
        }
        enum Content: Decodable {
            case text(String)
            case parts([Part])
            struct Part: Decodable {
                var type: String
                var text: String?
            }
            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let text = try? container.decode(String.self) { self = .text(text) } else { self = .parts(try container.decode([Part].self)) }
            }
            var text: String {
                switch self {
                case .text(let text): text
                case .parts(let parts): parts.compactMap(\.text).joined()
                }
            }
        }
        var messages: [Message]?
        var stream: Bool?
        var model: String?
    }

    private func chatCompletions(
        _ head: HTTPRequestHead, body: String, options: TermLLMStandIn.Options, outbound: Outbound,
        closed: ClosedFlag
    ) async throws -> Bool {
        guard let request = try? JSONDecoder().decode(ChatRequest.self, from: Data(body.utf8)) else {
            try await writeError(outbound, status: 400, message: "invalid character in request body", type: "invalid_request_error")
            return true
        }
        guard let messages = request.messages, !messages.isEmpty else {
            try await writeError(outbound, status: 400, message: "messages is required", type: "invalid_request_error")
            return true
        }
        if let bad = messages.first(where: { !["user", "assistant", "system", "developer", "tool"].contains($0.role) }) {
            try await writeError(outbound, status: 400, message: "unsupported message role: \(bad.role)", type: "invalid_request_error")
            return true
        }
        if options.sessionLimitReached {
            try await writeError(outbound, status: 409, message: "session limit reached: all sessions are busy", type: "conflict_error")
            return true
        }
        let requested = head.headers.first(name: "session_id")
        let sessionID = requested ?? TermLLMStandIn.mintSessionID()
        let minted = requested == nil
        let replace = messages.count > 1 || messages.contains { ["system", "developer", "assistant"].contains($0.role) }
        let query = messages.last(where: { $0.role == "user" })?.content?.text ?? ""
        let stream = request.stream ?? false

        // Claim the session (term-llm's TryLock); a busy session fails at once.
        let claim: (plan: TermLLMTurnPlan, model: String)? = standIn.state.withLock { state in
            var session = state.sessions[sessionID] ?? .init()
            if session.busy { return nil }
            if replace {
                state.historyReplacements += 1
                session.messages = messages.dropLast().map { TermLLMStoredMessage(role: $0.role, content: $0.content?.text ?? "") }
            }
            let userTurn = session.messages.filter { $0.role == "user" }.count + 1
            let context = TermLLMTurnContext(sessionID: sessionID, query: query, userTurn: userTurn, history: session.messages)
            session.messages.append(TermLLMStoredMessage(role: "user", content: query))
            session.busy = true
            state.sessions[sessionID] = session
            let model = (request.model ?? "").isEmpty ? state.options.model : request.model!
            return (state.planner(context), model)
        }
        let chunkID =
            "chatcmpl_"
            + String(
                sessionID.unicodeScalars.filter {
                    ($0.properties.isASCIIHexDigit || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || $0 == "_" || $0 == "-")
                }.map(Character.init))
        guard let (plan, model) = claim else {
            let message = "session is busy processing another request"
            if !stream {
                try await writeError(outbound, status: 409, message: message, type: "conflict_error")
                return true
            }
            try await writeSSEHead(outbound, sessionID: minted ? sessionID : nil, extra: [])
            let chunk = TermLLMChunks(id: chunkID, created: Self.now(), model: standIn.state.withLock { $0.options.model })
            try await writeText(outbound, chunk.error(message: message, type: "conflict_error"))
            try await writeText(outbound, "data: [DONE]\n\n")
            try await outbound.write(.end(nil))
            return true
        }

        var assistantText = ""
        var outcome = "interrupted"
        defer {
            standIn.state.withLock { state in
                state.sessions[sessionID]?.busy = false
                if !assistantText.isEmpty || outcome != "error" {
                    state.sessions[sessionID]?.messages.append(
                        TermLLMStoredMessage(role: "assistant", content: assistantText, interrupted: outcome == "interrupted"))
                }
                if outcome == "interrupted" { state.interruptedRuns += 1 } else { state.completedRuns += 1 }
            }
        }
        if plan.dropBeforeHeaders { return false }
        let pacer = Pacer(closed: { closed.value.load(ordering: .acquiring) }, pingInterval: standIn.state.withLock { $0.options.pingInterval })
        do {
            try await pacer.wait(plan.headerDelay, pings: false, outbound: outbound)
            if let failure = plan.httpError {
                outcome = "error"
                try await writeError(outbound, status: failure.status, message: failure.message, type: failure.type)
                return true
            }
            if !stream {
                return try await nonStreaming(plan, outbound: outbound, model: model, pacer: pacer, text: &assistantText, outcome: &outcome)
            }
            try await writeSSEHead(outbound, sessionID: minted ? sessionID : nil, extra: [])
            pacer.start()
            let chunks = TermLLMChunks(id: chunkID, created: Self.now(), model: model)
            var roleSent = false
            var toolCalls: [(id: String, name: String)] = []
            for step in plan.steps {
                if pacer.isClosed { throw Disconnected() }
                switch step {
                case .text(let text):
                    try await writeText(outbound, chunks.content(text, withRole: !roleSent))
                    roleSent = true
                    assistantText += text
                case .toolCall(let name, let arguments):
                    if !roleSent {
                        try await writeText(outbound, chunks.roleOnly())
                        roleSent = true
                    }
                    let callID = "toolu_\(toolCalls.count + 1)"
                    try await writeText(outbound, chunks.toolCall(index: toolCalls.count, id: callID, name: name, arguments: arguments))
                    toolCalls.append((callID, name))
                case .heartbeat:
                    let call = toolCalls.last ?? (id: "toolu_0", name: "unknown")
                    try await writeText(outbound, chunks.heartbeat(callID: call.id, toolName: call.name))
                case .sleep(let duration):
                    try await pacer.wait(duration, pings: true, outbound: outbound)
                case .silence(let duration):
                    try await pacer.wait(duration, pings: false, outbound: outbound)
                case .hold(let gate, let timeout):
                    try await pacer.wait(timeout, pings: true, outbound: outbound, until: gate)
                case .error(let message, let type):
                    outcome = "error"
                    try await writeText(outbound, chunks.error(message: message, type: type))
                    try await writeText(outbound, "data: [DONE]\n\n")
                    try await outbound.write(.end(nil))
                    return true
                case .dropConnection:
                    return false
                }
            }
            outcome = "completed"  // the run is over once the finish chunk goes out
            try await writeText(outbound, chunks.finish(toolCalls.isEmpty ? "stop" : "tool_calls"))
            try await writeText(outbound, "data: [DONE]\n\n")
            try await outbound.write(.end(nil))
            return true
        } catch {
            return false
        }
    }

    private func nonStreaming(
        _ plan: TermLLMTurnPlan, outbound: Outbound, model: String, pacer: Pacer,
        text: inout String, outcome: inout String
    ) async throws -> Bool {
        var toolCalls: [GoJSON] = []
        for step in plan.steps {
            switch step {
            case .text(let piece): text += piece
            case .toolCall(let name, let arguments):
                toolCalls.append(
                    .object([
                        "id": .string("toolu_\(toolCalls.count + 1)"), "type": .string("function"),
                        "function": .object(["name": .string(name), "arguments": .string(arguments)])
                    ]))
            case .sleep(let duration), .silence(let duration): try await pacer.wait(duration, pings: false, outbound: outbound)
            case .hold(let gate, let timeout): try await pacer.wait(timeout, pings: false, outbound: outbound, until: gate)
            case .heartbeat: break
            case .error(let message, let type):
                outcome = "error"
                try await writeError(outbound, status: type == "conflict_error" ? 409 : 400, message: message, type: type)
                return true
            case .dropConnection: return false
            }
        }
        var message: [String: GoJSON] = ["role": .string("assistant"), "content": .string(text)]
        if !toolCalls.isEmpty { message["tool_calls"] = .array(toolCalls) }
        let body =
            GoJSON.object([
                "choices": .array([
                    .object([
                        "finish_reason": .string(toolCalls.isEmpty ? "stop" : "tool_calls"), "index": .int(0),
                        "message": .object(message)
                    ])
                ]),
                "created": .int(Self.now()), "id": .string("chatcmpl_q1w2e3r4t5y6"), "model": .string(model),
                "object": .string("chat.completion")
            ]).serialized + "\n"
        try await writeSimple(outbound, status: 200, contentType: "application/json", body: body)
        outcome = "completed"
        return true
    }

    // MARK: writing

    static func now() -> Int { Int(Date().timeIntervalSince1970) }

    func writeSSEHead(_ outbound: Outbound, sessionID: String?, extra: [(String, String)]) async throws {
        var headers = HTTPHeaders([
            ("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"), ("Connection", "keep-alive"),
            ("X-Accel-Buffering", "no")
        ])
        if let sessionID { headers.add(name: "X-Session-Id", value: sessionID) }
        for (name, value) in extra { headers.add(name: name, value: value) }
        headers.add(name: "X-Term-Llm-Ui-Version", value: "3b1f0c2d")
        try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)))
    }

    func writeText(_ outbound: Outbound, _ text: String) async throws {
        try await outbound.write(.body(.byteBuffer(ByteBuffer(string: text))))
    }

    func writeSimple(
        _ outbound: Outbound, status: Int, contentType: String, body: String, extra: [(String, String)] = [],
        version: Bool = true
    ) async throws {
        var headers = HTTPHeaders([("Content-Type", contentType), ("Content-Length", String(body.utf8.count))])
        for (name, value) in extra { headers.add(name: name, value: value) }
        if version { headers.add(name: "X-Term-Llm-Ui-Version", value: "3b1f0c2d") }
        try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers)))
        try await outbound.write(.body(.byteBuffer(ByteBuffer(string: body))))
        try await outbound.write(.end(nil))
    }

    /// term-llm's error body: `{"error":{"message":...,"type":...}}` plus json.Encoder's newline.
    func writeError(
        _ outbound: Outbound, status: Int, message: String, type: String, extra: [(String, String)] = [],
        version: Bool = true
    ) async throws {
        let body = GoJSON.object(["error": .object(["message": .string(message), "type": .string(type)])]).serialized + "\n"
        try await writeSimple(outbound, status: status, contentType: "application/json", body: body, extra: extra, version: version)
    }
}

/// Sleeps in small slices, writing `: ping` on schedule and noticing a closed connection.
final class Pacer: Sendable {
    private let closed: @Sendable () -> Bool
    private let pingInterval: Duration
    private let nextPing = Mutex<ContinuousClock.Instant?>(nil)

    init(closed: @escaping @Sendable () -> Bool, pingInterval: Duration) {
        self.closed = closed
        self.pingInterval = pingInterval
    }

    var isClosed: Bool { closed() }

    /// Pings are due every interval from when the stream opens.
    func start() {
        nextPing.withLock { $0 = .now + pingInterval }
    }

    func wait(
        _ duration: Duration, pings: Bool, outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>,
        until gate: TermLLMGate? = nil
    ) async throws {
        let deadline = ContinuousClock.now + duration
        while true {
            if closed() { throw CancellationError() }
            if gate?.isOpen == true { return }
            let now = ContinuousClock.now
            if pings, let due = nextPing.withLock({ $0 }), now >= due {
                nextPing.withLock { $0 = due + pingInterval }
                try await outbound.write(.body(.byteBuffer(ByteBuffer(string: ": ping\n\n"))))
            }
            if now >= deadline { return }
            try await Task.sleep(for: min(.milliseconds(5), deadline - now))
        }
    }
}
