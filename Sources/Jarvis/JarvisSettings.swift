import Basics

/// The `[jarvis]` configuration. Defaults are documented per field; the TOML key is in brackets.
/// The token is not here: the configuration layer reads `token_file` and passes the value to
/// `JarvisClient` directly.
public struct JarvisSettings: Sendable, Equatable {
    public enum API: String, Sendable, Equatable {
        /// `POST {url}/v1/chat/completions` with the `session_id` header (recommended for term-llm).
        case chatCompletions = "chat_completions"
        /// `POST {url}/v1/responses`, chained with `previous_response_id`.
        case responses
    }

    /// Which server speaks behind `url`.
    public enum Backend: Sendable, Equatable {
        /// term-llm `serve`: session id minted by the server (`x-session-id` in, `session_id` out).
        case termLLM
        /// OpenClaw's gateway: the client owns the session key (`x-openclaw-session-key`), `model`
        /// names the agent target (e.g. `openclaw/main`), no ids come back.
        case openClaw(sessionKey: String, agentTarget: String)
    }

    /// [url] Base URL including term-llm's base path, e.g. `http://10.0.0.52:8081/ui`. No trailing slash needed.
    public var url: String
    /// [token_file] Where the configuration layer reads the bearer token from (informational here).
    public var tokenFile: String
    /// [api] Default `.chatCompletions`.
    public var api: API
    /// [inactivity_timeout_s] Longest silence (no byte; `: ping` comments count) before giving up. Default 30 s
    /// (term-llm pings every 10 s).
    public var inactivityTimeout: Duration
    /// [total_timeout_s] Cap per question, after which the connection is closed (which cancels the run). Default 120 s.
    public var totalTimeout: Duration
    /// TCP connect budget. Default 5 s.
    public var connectTimeout: Duration
    /// [session_idle_reset_min] Forget the session id after this long without a question. Default 30 min.
    public var sessionIdleReset: Duration
    /// [max_answer_words] Spoken answers are cut near this many words, with an offer to elaborate. Default 150.
    public var maxAnswerWords: Int
    /// Consecutive failures that open the circuit breaker. Default 3.
    public var breakerFailureThreshold: Int
    /// While open, questions are answered at once with the last failure's explanation. Default 30 s.
    public var breakerCooldown: Duration
    /// Speak only the text after the last tool call ("Let me check." before a tool is filler). Default true.
    public var dropTextBeforeToolCalls: Bool
    /// Default `.termLLM`.
    public var backend: Backend

    public init(
        url: String,
        tokenFile: String = "",
        api: API = .chatCompletions,
        inactivityTimeout: Duration = .seconds(30),
        totalTimeout: Duration = .seconds(120),
        connectTimeout: Duration = .seconds(5),
        sessionIdleReset: Duration = .seconds(30 * 60),
        maxAnswerWords: Int = 150,
        breakerFailureThreshold: Int = 3,
        breakerCooldown: Duration = .seconds(30),
        dropTextBeforeToolCalls: Bool = true,
        backend: Backend = .termLLM
    ) {
        self.url = url
        self.tokenFile = tokenFile
        self.api = api
        self.inactivityTimeout = inactivityTimeout
        self.totalTimeout = totalTimeout
        self.connectTimeout = connectTimeout
        self.sessionIdleReset = sessionIdleReset
        self.maxAnswerWords = maxAnswerWords
        self.breakerFailureThreshold = breakerFailureThreshold
        self.breakerCooldown = breakerCooldown
        self.dropTextBeforeToolCalls = dropTextBeforeToolCalls
        self.backend = backend
    }

    /// The endpoint for the configured API: `{url}/v1/chat/completions` or `{url}/v1/responses`.
    public func endpoint() throws(WebURLError) -> String {
        try url(appending: api == .chatCompletions ? "v1/chat/completions" : "v1/responses")
    }

    /// `{url}/{path}`, the base URL parsed under `WebURL.Rules.jarvis` (the rules `check-config` applies).
    public func url(appending path: String) throws(WebURLError) -> String {
        try WebURL(parsing: url, rules: .jarvis).appendingPath(path).absoluteString
    }
}
