/// Why a question got no answer. `spokenExplanation` is what the appliance says instead (wording
/// after the seed's error messages); `description` is for the journal (host only, never the token).
public enum JarvisFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// No byte for the inactivity timeout, or the total cap expired, or the server's run timed out.
    case timeout(detail: String)
    /// DNS, connect refused/unreachable, connect timeout, or the connection broke before an answer.
    case offline(detail: String)
    /// 401/403.
    case authenticationFailed(detail: String)
    /// 409 or an in-band `conflict_error`: the session is still working on something else.
    case busy(detail: String)
    /// 5xx, 400 (term-llm reports provider errors as 400), in-band errors, unreadable streams.
    case serverError(detail: String)
    /// 3xx/404/405: the URL is probably missing the base path (`/ui`).
    case wrongURL(detail: String)
    /// The caller cancelled (barge-in); nothing is spoken.
    case cancelled

    public var spokenExplanation: String {
        switch self {
        case .timeout:
            "I wasn't able to get an answer from Jarvis: the request timed out. The homelab may be busy."
        case .offline:
            "Jarvis appears to be offline right now. I can't reach the homelab."
        case .authenticationFailed:
            "Authentication to Jarvis failed. The Jarvis token in the appliance settings may need updating."
        case .busy:
            "Jarvis is still busy with the previous request. Please try again in a moment."
        case .serverError:
            "Something went wrong on Jarvis's side and it couldn't answer. Please try again."
        case .wrongURL:
            "I couldn't find Jarvis's API at the configured address. The Jarvis URL in the settings may be missing its base path."
        case .cancelled:
            ""
        }
    }

    public var description: String {
        switch self {
        case .timeout(let detail): "Jarvis timed out: \(detail)"
        case .offline(let detail): "Jarvis unreachable: \(detail)"
        case .authenticationFailed(let detail): "Jarvis rejected the token: \(detail)"
        case .busy(let detail): "Jarvis session busy: \(detail)"
        case .serverError(let detail): "Jarvis server error: \(detail)"
        case .wrongURL(let detail): "Jarvis URL looks wrong: \(detail)"
        case .cancelled: "Jarvis request cancelled"
        }
    }

    /// Whether this failure says Jarvis is unhealthy (counts toward the circuit breaker).
    var countsAsOutage: Bool {
        switch self {
        case .timeout, .offline, .authenticationFailed, .serverError, .wrongURL: true
        case .busy, .cancelled: false
        }
    }
}
