import NIOHTTP1
import Synchronization

/// Why the Realtime stand-in answers an upgrade request with a plain HTTP status instead of 101.
enum UpgradeRefusalReason: Sendable, Equatable {
    /// `authFailure == .http401` and the `Authorization` header is not the script's key.
    case wrongKey
    /// `?model=` names a model the API no longer serves (or is missing; then `model` is "").
    case modelNotFound(model: String)
    case creditExhausted
    case rateLimited(retryAfterSeconds: Int)
    /// A plain HTTP request, not a WebSocket upgrade (the upgrader never saw it).
    case notAnUpgrade

    /// Status, extra headers and OpenAI's JSON error body.
    var response: (status: HTTPResponseStatus, headers: [(String, String)], body: String) {
        switch self {
        case .wrongKey:
            (.unauthorized, [], OpenAIErrorBody.invalidAPIKey)
        case .modelNotFound(let model):
            (.notFound, [], OpenAIErrorBody.modelNotFound(model))
        case .creditExhausted:
            (.tooManyRequests, [], OpenAIErrorBody.creditExhausted)
        case .rateLimited(let seconds):
            (.tooManyRequests, [("retry-after", "\(seconds)")], OpenAIErrorBody.rateLimited(retryAfterSeconds: seconds))
        case .notAnUpgrade:
            (.badRequest, [], OpenAIErrorBody.body(message: "Expected a WebSocket upgrade request.", type: "invalid_request_error", code: nil))
        }
    }
}

/// Decides each upgrade request from its head, once, in `shouldUpgrade`: the not-upgraded path never sees
/// the head (NIO's upgrader keeps it), so the decision travels to it in the connection's `UpgradeVerdict`.
/// Exists before the stand-in does (the bootstrap's closures need it), hence not part of `Shared`.
final class RealtimeUpgradeGate: Sendable {
    private struct State {
        var requestedModels: [String] = []
        var rateLimited = 0
    }

    private let script: RealtimeStandInScript
    private let state = Mutex(State())

    init(script: RealtimeStandInScript) { self.script = script }

    /// The key first (an API authenticates before it routes), then the model, then the account's limits.
    /// A wrong key under `.errorEventThenClose` upgrades: the connection reports it.
    func decide(_ head: HTTPRequestHead) -> UpgradeRefusalReason? {
        let model = RealtimeStandIn.model(in: head.uri) ?? ""
        let authorized = head.headers["Authorization"].first == "Bearer \(script.apiKey)"
        return state.withLock { state -> UpgradeRefusalReason? in
            state.requestedModels.append(model)
            if !authorized { return script.authFailure == .http401 ? .wrongKey : nil }
            if model.isEmpty || script.shutDownModels.contains(model) { return .modelNotFound(model: model) }
            switch script.upgradeRefusal {
            case nil: return nil
            case .creditExhausted?: return .creditExhausted
            case .rateLimited(let times, let seconds)?:
                guard state.rateLimited < times else { return nil }
                state.rateLimited += 1
                return .rateLimited(retryAfterSeconds: seconds)
            }
        }
    }

    var requestedModels: [String] { state.withLock { $0.requestedModels } }
}

/// One connection's upgrade decision, from `shouldUpgrade` to the not-upgraded completion handler (both run
/// on the connection's event loop, in that order).
final class UpgradeVerdict: Sendable {
    private let refusal = Mutex<UpgradeRefusalReason?>(nil)

    func record(_ value: UpgradeRefusalReason?) { refusal.withLock { $0 = value } }

    /// nil means the upgrader never decided: the request was not an upgrade.
    var recorded: UpgradeRefusalReason? { refusal.withLock { $0 } }
}

/// OpenAI's JSON error bodies, byte for byte in the API's key order.
public enum OpenAIErrorBody {
    public static let invalidAPIKey = body(message: "Incorrect API key provided.", type: "invalid_request_error", code: "invalid_api_key")

    public static let creditExhausted = body(
        message:
            "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
        type: "insufficient_quota", code: "credit_balance_exhausted")

    public static func modelNotFound(_ model: String) -> String {
        body(message: "The model `\(model)` does not exist or you do not have access to it.", type: "invalid_request_error", code: "model_not_found")
    }

    public static func rateLimited(retryAfterSeconds: Int) -> String {
        body(message: "Rate limit reached for requests. Please try again in \(retryAfterSeconds)s.", type: "requests", code: "rate_limit_exceeded")
    }

    /// `{"error":{"message":…,"type":…,"param":null,"code":…}}`.
    public static func body(message: String, type: String, code: String?) -> String {
        GoJSON.ordered([
            (
                "error",
                .ordered([
                    ("message", .string(message)), ("type", .string(type)), ("param", .null), ("code", code.map(GoJSON.string) ?? .null)
                ])
            )
        ]).serialized
    }
}
