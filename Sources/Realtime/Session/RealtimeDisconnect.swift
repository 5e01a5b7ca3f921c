/// Why a Realtime connection ended (or could not be opened), classified for the reconnect decision.
public struct RealtimeDisconnect: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// We closed it (shutdown, recycle): no retry needed unless the owner wants one.
        case closedByClient
        /// Network trouble, server restart, session expiry: reconnect under the backoff policy.
        case transient
        /// Retrying cannot help (bad API key, no quota, protocol shape rejected): stop and tell the user.
        case fatal
    }

    public enum Reason: Sendable, Equatable {
        case clientClosed
        case recycled
        case sessionExpired
        case connectionLost
        case pingTimeout
        case connectFailed(String)
        case upgradeRejected(status: Int)
        case serverClosed(code: Int, reason: String)
        case invalidAPIKey
        case insufficientQuota
        case betaShapeRejected
        case serverError(code: String)
        case gaveUp(attempts: Int)
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

    /// Error codes after which reconnecting is pointless.
    public static let fatalErrorCodes: Set<String> = [
        "invalid_api_key", "insufficient_quota", "beta_api_shape_disabled", "model_not_found",
    ]

    /// Classifies a close frame (or its absence: `closeCode == nil` means the TCP connection just ended),
    /// given the last `error` event code the server sent on this connection.
    public static func classify(closeCode: Int?, closeReason: String = "", lastErrorCode: String?, closedByUs: Bool) -> Self {
        if let lastErrorCode, fatalErrorCodes.contains(lastErrorCode) {
            return .init(kind: .fatal, reason: fatalReason(errorCode: lastErrorCode), closeCode: closeCode)
        }
        if closedByUs { return .init(kind: .closedByClient, reason: .clientClosed, closeCode: closeCode) }
        guard let closeCode else { return .init(kind: .transient, reason: .connectionLost) }
        if lastErrorCode == "session_expired" || closeReason.contains("maximum duration") {
            return .init(kind: .transient, reason: .sessionExpired, closeCode: closeCode)
        }
        switch closeCode {
        case 4000: return .init(kind: .fatal, reason: .betaShapeRejected, closeCode: closeCode)
        case 1008 where lastErrorCode == nil && closeReason.lowercased().contains("api key"):
            return .init(kind: .fatal, reason: .invalidAPIKey, closeCode: closeCode)
        default: return .init(kind: .transient, reason: .serverClosed(code: closeCode, reason: closeReason), closeCode: closeCode)
        }
    }

    /// Classifies an HTTP upgrade answered with something other than 101.
    public static func classify(upgradeStatus status: Int) -> Self {
        switch status {
        case 401, 403: .init(kind: .fatal, reason: .invalidAPIKey)
        case 404: .init(kind: .fatal, reason: .upgradeRejected(status: status))
        default: .init(kind: .transient, reason: .upgradeRejected(status: status))
        }
    }

    static func fatalReason(errorCode: String) -> Reason {
        switch errorCode {
        case "invalid_api_key": .invalidAPIKey
        case "insufficient_quota": .insufficientQuota
        case "beta_api_shape_disabled": .betaShapeRejected
        default: .serverError(code: errorCode)
        }
    }

    public var description: String {
        let text: String
        switch reason {
        case .clientClosed: text = "closed by the appliance"
        case .recycled: text = "recycled before the 60-minute session limit"
        case .sessionExpired: text = "the Realtime session hit its maximum duration"
        case .connectionLost: text = "the connection to the Realtime API was lost"
        case .pingTimeout: text = "the Realtime API stopped answering keepalive pings"
        case .connectFailed(let detail): text = "could not connect to the Realtime API (\(detail))"
        case .upgradeRejected(let status): text = "the Realtime API refused the WebSocket upgrade with HTTP \(status)"
        case .serverClosed(let code, let reason): text = "the Realtime API closed the connection (code \(code)\(reason.isEmpty ? "" : ": \(reason)"))"
        case .invalidAPIKey: text = "the Realtime API rejected the API key; check realtime.api_key_file"
        case .insufficientQuota: text = "the OpenAI account has no quota left; check billing"
        case .betaShapeRejected: text = "the Realtime API rejected a beta-shaped request (close 4000); this is a bug in jarvis-voice"
        case .serverError(let code): text = "the Realtime API reported \(code)"
        case .gaveUp(let attempts): text = "gave up after \(attempts) failed connection attempts"
        }
        switch kind {
        case .fatal: return "\(text); not retrying"
        case .transient: return "\(text); will reconnect"
        case .closedByClient: return text
        }
    }
}
