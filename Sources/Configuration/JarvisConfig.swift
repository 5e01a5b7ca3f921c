/// `[jarvis]`: the owner's agent (term-llm `serve` / OpenClaw gateway) reached by `ask_jarvis`.
public struct JarvisConfig: Sendable, Equatable {
    public enum API: String, Sendable, CaseIterable {
        case chatCompletions = "chat_completions"
        case responses
    }

    /// Base URL including term-llm's base path; `/v1/chat/completions` or `/v1/responses` is appended.
    public var url: String
    /// File holding the Bearer token, read by the service user; "" (the default) = the systemd
    /// credential `jarvis-token` if present.
    /// Without either, requests carry no Authorization header.
    public var tokenFile: String
    public var api: API
    /// Abort when no byte (pings included) arrives for this long.
    public var inactivityTimeoutSeconds: Double
    /// Abort a request after this long in total.
    public var totalTimeoutSeconds: Double
    /// Start a fresh Jarvis session after this many idle minutes.
    public var sessionIdleResetMinutes: Int
    /// Spoken answers are shortened to about this many words (with an offer to elaborate).
    public var maxAnswerWords: Int

    public init(
        url: String = "http://10.0.0.52:8081/ui",
        tokenFile: String = "",
        api: API = .chatCompletions,
        inactivityTimeoutSeconds: Double = 30,
        totalTimeoutSeconds: Double = 120,
        sessionIdleResetMinutes: Int = 30,
        maxAnswerWords: Int = 150
    ) {
        self.url = url
        self.tokenFile = tokenFile
        self.api = api
        self.inactivityTimeoutSeconds = inactivityTimeoutSeconds
        self.totalTimeoutSeconds = totalTimeoutSeconds
        self.sessionIdleResetMinutes = sessionIdleResetMinutes
        self.maxAnswerWords = maxAnswerWords
    }

    public var inactivityTimeout: Duration { .milliseconds(Int64(inactivityTimeoutSeconds * 1000)) }
    public var totalTimeout: Duration { .milliseconds(Int64(totalTimeoutSeconds * 1000)) }
    public var sessionIdleReset: Duration { .seconds(sessionIdleResetMinutes * 60) }
}
