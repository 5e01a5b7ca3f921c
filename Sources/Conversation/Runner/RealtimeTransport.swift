import Realtime

/// The runner's view of the Realtime API: something that opens one connection at a time. The WebSocket
/// implementation (and, in tests, an in-memory fake) sits behind it; the endpoint, model and key are the
/// transport's own construction parameters. It never retries: the runner owns every retry decision.
public protocol RealtimeTransport: Sendable {
    /// Opens one session (one WebSocket), or throws how the attempt failed. Returns once the socket is
    /// open; `session.created` then arrives through the link's `run`.
    func connect() async throws(RealtimeDisconnect) -> any RealtimeLink
    /// The model and key source the API's errors on this transport are described with.
    var context: RealtimeConnectionContext { get }
}

extension RealtimeTransport {
    public var context: RealtimeConnectionContext { RealtimeConnectionContext(model: RealtimeModels.defaultID) }
}

/// One open Realtime session.
public protocol RealtimeLink: Sendable {
    /// Reads the session in the caller's task, delivering events in arrival order, until it ends;
    /// returns how it ended (`.closedByClient` after `close()`). Called once. Cancelling the caller drops it.
    func run(deliver: @escaping @Sendable (RealtimeLinkEvent) -> Void) async -> RealtimeDisconnect
    /// Sends one text frame (a client event's JSON). Throws when the socket is gone; `run` then returns.
    func send(_ text: String) async throws(RealtimeSendError)
    /// Starts closing normally (code 1000); `run` returns once it is closed. Idempotent, does not wait.
    func close()
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
}

public struct RealtimeSendError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { "could not send to the Realtime API: \(reason)" }
}
