/// How the stand-in answers one turn. Steps run in order while `: ping` comments keep flowing
/// every `pingInterval` (except during `.silence`).
public struct TermLLMTurnPlan: Sendable {
    public enum Step: Sendable {
        /// A `delta.content` chunk.
        case text(String)
        /// A `delta.tool_calls` chunk (complete arguments, like term-llm).
        case toolCall(name: String, arguments: String)
        /// A tool heartbeat chunk for the latest tool call.
        case heartbeat
        /// Wait; pings continue (a long tool run).
        case sleep(Duration)
        /// Wait with no bytes at all, pings included (a hung server).
        case silence(Duration)
        /// Wait until the test opens the gate (or `timeout` passes); pings continue. Lets a test
        /// keep a run busy exactly as long as it needs, however slow the machine is.
        case hold(TermLLMGate, timeout: Duration)
        /// In-band error chunk (`finish_reason: "error"`), then `[DONE]`.
        case error(message: String, type: String)
        /// Close the connection without finishing the response.
        case dropConnection
    }

    /// Delay before the response head is written (slow first byte).
    public var headerDelay: Duration
    /// Answer with this status and term-llm's JSON error body instead of streaming.
    public var httpError: (status: Int, message: String, type: String)?
    /// Close the connection right after reading the request, before any response byte.
    public var dropBeforeHeaders: Bool
    public var steps: [Step]

    public init(
        headerDelay: Duration = .zero, httpError: (status: Int, message: String, type: String)? = nil,
        dropBeforeHeaders: Bool = false, steps: [Step]
    ) {
        self.headerDelay = headerDelay
        self.httpError = httpError
        self.dropBeforeHeaders = dropBeforeHeaders
        self.steps = steps
    }

    public static func answer(_ pieces: String...) -> TermLLMTurnPlan {
        TermLLMTurnPlan(steps: pieces.map { .text($0) })
    }
}

/// What the planner sees for a turn.
public struct TermLLMTurnContext: Sendable {
    public let sessionID: String
    /// The user's text in this request.
    public let query: String
    /// 1-based count of user messages in the session, this one included.
    public let userTurn: Int
    /// Stored history before this turn.
    public let history: [TermLLMStoredMessage]
}

public struct TermLLMStoredMessage: Sendable, Equatable {
    public var role: String
    public var content: String
    /// True for an assistant message cut short by a disconnect.
    public var interrupted: Bool

    public init(role: String, content: String, interrupted: Bool = false) {
        self.role = role
        self.content = content
        self.interrupted = interrupted
    }
}

/// One request as received.
public struct TermLLMRecordedRequest: Sendable {
    public let method: String
    public let path: String
    /// Header names and values as sent (names in the client's spelling).
    public let headers: [(name: String, value: String)]
    public let body: String

    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    public func headers(named name: String) -> [String] {
        let wanted = name.lowercased()
        return headers.filter { $0.name.lowercased() == wanted }.map(\.value)
    }
}
