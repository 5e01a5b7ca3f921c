/// How a Realtime connection ended (or why it could not be opened), as a typed value. The Realtime module
/// only reports it; the owner of the connection (the conversation runner) decides whether to reconnect.
public struct RealtimeDisconnect: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// We closed it (`close()`, shutdown).
        case closedByClient
        /// Network trouble, a refused or failed connect, a server restart: trying again later may work.
        case transient
        /// The session reached the API's maximum duration: a fresh session works at once.
        case expired
        /// Retrying cannot help (bad API key, no credit, a model the API does not serve, protocol shape
        /// rejected): tell the user; the next conversation tries again.
        case fatal
    }

    /// Why the API could not be reached at all (the network, not the API, is the problem).
    public enum Unreachable: Sendable, Equatable {
        case connectionRefused
        case hostNotFound
        case timedOut
        case networkUnreachable
        case hostUnreachable
        /// Another `connect()` errno.
        case socketError(errno: Int32)
    }

    public enum Reason: Sendable, Equatable {
        case clientClosed
        case sessionExpired
        case connectionLost
        case pingTimeout
        /// TCP never connected: DNS, refused, timeout, no route.
        case unreachable(host: String, Unreachable)
        /// Connected, but the TLS handshake or HTTP upgrade did not complete (the detail is for people only).
        case connectFailed(String)
        /// An HTTP status other than 101 whose body named nothing more specific.
        case upgradeRejected(status: Int)
        /// Connected, but no answer to the HTTP upgrade within the connect timeout (a stalled server or proxy).
        case upgradeTimedOut(milliseconds: Int)
        case serverClosed(code: Int, reason: String)
        /// HTTP 401/403 or `invalid_api_key`; `source` says where the key came from.
        case invalidAPIKey(source: String)
        /// `insufficient_quota` / `credit_balance_exhausted`: the account has no credit left.
        case outOfCredit
        /// `model_not_found` (HTTP 404 at the upgrade): a retired model, or one this key may not use.
        case modelNotFound(model: String)
        /// HTTP 429 or `rate_limit_exceeded`: too many requests for now; `retryAfterSeconds` from the server.
        case rateLimited(retryAfterSeconds: Int?)
        case betaShapeRejected
        case serverError(code: String)
        case invalidURL(String)
    }

    public var kind: Kind
    public var reason: Reason
    /// The WebSocket close code, when a close frame arrived.
    public var closeCode: Int?

    public init(kind: Kind, reason: Reason, closeCode: Int? = nil) {
        self.kind = kind
        self.reason = reason
        self.closeCode = closeCode
    }

    public var isFatal: Bool { kind == .fatal }

    /// The API could not be reached (no TCP connection): the network or the host is down.
    public var isUnreachable: Bool {
        if case .unreachable = reason { return true }
        return false
    }

    /// The server's own "not before" for the next attempt, when it gave one.
    public var retryAfter: Duration? {
        if case .rateLimited(let seconds?) = reason { return .seconds(seconds) }
        return nil
    }

    /// What an API error (an `error` event, or the body of a refused upgrade) means for the connection,
    /// from its code and type only, never its message. nil: nothing that ends the connection.
    public static func classify(_ error: RealtimeError, context: RealtimeConnectionContext) -> Self? {
        let names = [error.code, error.type].compactMap { $0 }
        func has(_ name: String) -> Bool { names.contains(name) }
        if has("insufficient_quota") || has("credit_balance_exhausted") || has("billing_hard_limit_reached") {
            return .init(kind: .fatal, reason: .outOfCredit)
        }
        if has("invalid_api_key") { return .init(kind: .fatal, reason: .invalidAPIKey(source: context.apiKeySource)) }
        if has("model_not_found") || has("invalid_model") { return .init(kind: .fatal, reason: .modelNotFound(model: context.model)) }
        if has("beta_api_shape_disabled") { return .init(kind: .fatal, reason: .betaShapeRejected) }
        if has("session_expired") { return .init(kind: .expired, reason: .sessionExpired) }
        return nil
    }

    /// Classifies a close frame (or its absence: `closeCode == nil` means the TCP connection just ended),
    /// given the last `error` event the server sent on this connection.
    public static func classify(
        closeCode: Int?, closeReason: String = "", lastError: RealtimeError?, closedByUs: Bool, context: RealtimeConnectionContext
    ) -> Self {
        let meaning = lastError.flatMap { classify($0, context: context) }
        if let meaning, meaning.isFatal { return .init(kind: .fatal, reason: meaning.reason, closeCode: closeCode) }
        if closedByUs { return .init(kind: .closedByClient, reason: .clientClosed, closeCode: closeCode) }
        if let meaning { return .init(kind: meaning.kind, reason: meaning.reason, closeCode: closeCode) }
        guard let closeCode else { return .init(kind: .transient, reason: .connectionLost) }
        switch closeCode {
        case 4000: return .init(kind: .fatal, reason: .betaShapeRejected, closeCode: closeCode)
        default: return .init(kind: .transient, reason: .serverClosed(code: closeCode, reason: closeReason), closeCode: closeCode)
        }
    }

    /// Classifies an HTTP upgrade answered with something other than 101, by its status, the API error in
    /// its JSON body (when it has one) and its `Retry-After` header.
    public static func classify(upgradeStatus status: Int, body: RealtimeError?, retryAfterSeconds: Int?, context: RealtimeConnectionContext) -> Self
    {
        if let body, let meaning = classify(body, context: context), meaning.kind != .expired { return meaning }
        switch status {
        case 401, 403: return .init(kind: .fatal, reason: .invalidAPIKey(source: context.apiKeySource))
        case 404: return .init(kind: .fatal, reason: .modelNotFound(model: context.model))
        case 429: return .init(kind: .transient, reason: .rateLimited(retryAfterSeconds: retryAfterSeconds))
        default: return .init(kind: .transient, reason: .upgradeRejected(status: status))
        }
    }

    /// One plain sentence for the journal and for `ctl say`'s error: what happened and what to do.
    public var description: String {
        switch reason {
        case .clientClosed: "closed by the appliance"
        case .sessionExpired: "the Realtime session reached its maximum duration"
        case .connectionLost: "the connection to the Realtime API was lost"
        case .pingTimeout: "the Realtime API stopped answering keepalive pings"
        case .unreachable(let host, let why): "cannot reach the Realtime API at \(host): \(why); check the network"
        case .connectFailed(let detail): "could not open a session with the Realtime API (\(detail))"
        case .upgradeRejected(let status): "the Realtime API refused the WebSocket upgrade with HTTP \(status)"
        case .upgradeTimedOut(let ms):
            "the Realtime API took the connection but did not answer the WebSocket upgrade within "
                + (ms % 1000 == 0 ? "\(ms / 1000) s" : "\(Double(ms) / 1000) s")
        case .serverClosed(let code, let reason): "the Realtime API closed the connection (code \(code)\(reason.isEmpty ? "" : ": \(reason)"))"
        case .invalidAPIKey(let source): "the Realtime API rejected the API key from \(source); put a valid OpenAI API key there"
        case .outOfCredit:
            "the OpenAI account is out of credit: add credit at https://platform.openai.com/settings/organization/billing, then press the button again"
        case .modelNotFound(let model): Self.modelAdvice(model)
        case .rateLimited(let seconds):
            "the Realtime API is rate-limiting this API key (HTTP 429)" + (seconds.map { "; it asks to wait \($0) s" } ?? "")
        case .betaShapeRejected: "the Realtime API rejected a beta-shaped request (close 4000); this is a bug in jarvis-voice"
        case .serverError(let code): "the Realtime API reported \(code)"
        case .invalidURL(let problem): problem
        }
    }

    private static func modelAdvice(_ model: String) -> String {
        let replacement = RealtimeModels.named(model)?.replacement ?? RealtimeModels.defaultID
        let why: String =
            switch RealtimeModels.lifecycle(of: model, on: .today()) {
            case .shutDown(let day, _): "it was shut down on \(day)"
            case .deprecated(let day, _): "it is deprecated (shutdown \(day)) and not available to this key"
            case .current, .unknown: "it does not exist or this API key may not use it"
            }
        return "the Realtime API does not serve the model \"\(model)\": \(why); set [realtime] model = \"\(replacement)\" in the config file"
            + " (`jarvis-voice models` lists the current ones)"
    }
}

/// What a connection's failures are described with: the model asked for and where its key came from.
public struct RealtimeConnectionContext: Sendable, Equatable {
    public var model: String
    /// Where the API key was read from, for the journal ("/etc/credstore/openai-api-key").
    public var apiKeySource: String

    public init(model: String, apiKeySource: String = "the configured API key") {
        self.model = model
        self.apiKeySource = apiKeySource
    }
}

extension RealtimeDisconnect.Unreachable: CustomStringConvertible {
    public var description: String {
        switch self {
        case .connectionRefused: "connection refused"
        case .hostNotFound: "host name not found"
        case .timedOut: "connection timed out"
        case .networkUnreachable: "network unreachable"
        case .hostUnreachable: "no route to host"
        case .socketError(let code): "connect failed (errno \(code))"
        }
    }
}
