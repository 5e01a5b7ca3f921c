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
        /// Retrying cannot help (bad API key, no quota, protocol shape rejected): tell the user.
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
        case upgradeRejected(status: Int)
        /// Connected, but no answer to the HTTP upgrade within the connect timeout (a stalled server or proxy).
        case upgradeTimedOut(milliseconds: Int)
        case serverClosed(code: Int, reason: String)
        case invalidAPIKey
        case insufficientQuota
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

    /// Error codes after which reconnecting is pointless.
    public static let fatalErrorCodes: Set<String> = [
        "invalid_api_key", "insufficient_quota", "beta_api_shape_disabled", "model_not_found", "invalid_model",
    ]

    /// Classifies a close frame (or its absence: `closeCode == nil` means the TCP connection just ended),
    /// given the last `error` event code the server sent on this connection.
    public static func classify(closeCode: Int?, closeReason: String = "", lastErrorCode: String?, closedByUs: Bool) -> Self {
        if let lastErrorCode, fatalErrorCodes.contains(lastErrorCode) {
            return .init(kind: .fatal, reason: fatalReason(errorCode: lastErrorCode), closeCode: closeCode)
        }
        if closedByUs { return .init(kind: .closedByClient, reason: .clientClosed, closeCode: closeCode) }
        if lastErrorCode == "session_expired" {
            return .init(kind: .expired, reason: .sessionExpired, closeCode: closeCode)
        }
        guard let closeCode else { return .init(kind: .transient, reason: .connectionLost) }
        switch closeCode {
        case 4000: return .init(kind: .fatal, reason: .betaShapeRejected, closeCode: closeCode)
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

    /// One plain sentence for the journal and for `ctl say`'s error.
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
        case .invalidAPIKey: "the Realtime API rejected the API key; check realtime.api_key_file"
        case .insufficientQuota: "the OpenAI account has no quota left; check billing"
        case .betaShapeRejected: "the Realtime API rejected a beta-shaped request (close 4000); this is a bug in jarvis-voice"
        case .serverError(let code): "the Realtime API reported \(code)"
        case .invalidURL(let problem): problem
        }
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
