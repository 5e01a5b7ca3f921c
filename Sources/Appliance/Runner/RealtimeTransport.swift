import Realtime

/// The runner's view of the Realtime API: something that opens sessions. The WebSocket implementation
/// (and, in tests, an in-memory fake) sits behind it; the endpoint, model and key are the transport's own
/// construction parameters.
public protocol RealtimeTransport: Sendable {
    /// Opens one session (one WebSocket). Returns once the socket is open; `session.created` then arrives
    /// on the link's `events`. Cancelling the calling task abandons the attempt.
    func connect() async throws(RealtimeConnectError) -> any RealtimeLink
}

/// One open Realtime session.
public protocol RealtimeLink: Sendable {
    /// Server events in arrival order. The stream's last element is `.closed`, then it finishes.
    var events: AsyncStream<RealtimeLinkEvent> { get }
    /// Sends one text frame (a client event's JSON). Throws when the socket is gone; the close then
    /// also arrives on `events`.
    func send(_ text: String) async throws(RealtimeSendError)
    /// Closes the socket normally (code 1000). Idempotent; no `.closed` needs to follow it.
    func close() async
}

extension RealtimeLink {
    public func send(_ event: ClientEvent) async throws(RealtimeSendError) {
        try await send(event.jsonText())
    }
}

public enum RealtimeLinkEvent: Sendable, Equatable {
    /// A frame decoded with `ServerEventDecoder` (unknown types arrive as `.unknown`).
    case server(ServerEvent)
    /// A frame that was not a valid server event: logged and counted, never fed to the engine.
    case undecodable(String)
    /// The session ended without our asking (server close, network loss). `fatal`: retrying cannot help
    /// (bad key, quota, `beta_api_shape_disabled`).
    case closed(reason: String, fatal: Bool)
}

/// Why a session could not be opened.
public struct RealtimeConnectError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    /// Retrying cannot help (HTTP 401/403 at the upgrade, quota): the conversation fails at once.
    public var fatal: Bool

    public init(reason: String, fatal: Bool) {
        self.reason = reason
        self.fatal = fatal
    }

    public var description: String { reason + (fatal ? " (not retrying)" : "") }
}

public struct RealtimeSendError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { "could not send to the Realtime API: \(reason)" }
}

/// Error codes after which a closing session is not worth reopening.
public enum RealtimeFatalErrors {
    public static let codes: Set<String> = [
        "invalid_api_key", "insufficient_quota", "beta_api_shape_disabled", "model_not_found", "invalid_model",
    ]
}
