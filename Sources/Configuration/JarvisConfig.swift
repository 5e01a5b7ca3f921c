/// `[jarvis]`: the owner's agent (term-llm `serve` / OpenClaw gateway) reached by `ask_jarvis`.
public struct JarvisConfig: Sendable, Equatable {
    public enum API: String, Sendable, CaseIterable {
        case chatCompletions = "chat_completions"
        case responses

        /// What the client appends to the base URL.
        public var path: String {
            switch self {
            case .chatCompletions: "/v1/chat/completions"
            case .responses: "/v1/responses"
            }
        }
    }

    /// Base URL including term-llm's base path; `/v1/chat/completions` or `/v1/responses` is appended.
    /// Required in the file: the owner's words go nowhere the owner did not write.
    public var url: String = ""
    /// File holding the Bearer token, read by the service user; "" (the default) = the systemd
    /// credential `jarvis-token` if present.
    /// Without either, requests carry no Authorization header.
    public var tokenFile: String = ""
    public var api: API = .chatCompletions
    /// Abort when no byte (pings included) arrives for this long.
    public var inactivityTimeoutSeconds: Double = 30
    /// Abort a request after this long in total.
    public var totalTimeoutSeconds: Double = 120
    /// Start a fresh Jarvis session after this many idle minutes.
    public var sessionIdleResetMinutes: Int = 30
    /// Spoken answers are shortened to about this many words (with an offer to elaborate).
    public var maxAnswerWords: Int = 150

    public init() {}

    public var inactivityTimeout: Duration { .milliseconds(Int64(inactivityTimeoutSeconds * 1000)) }
    public var totalTimeout: Duration { .milliseconds(Int64(totalTimeoutSeconds * 1000)) }
    public var sessionIdleReset: Duration { .seconds(sessionIdleResetMinutes * 60) }
}
