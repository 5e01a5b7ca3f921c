/// What the Realtime session tells the engine runner, in order.
public enum RealtimeSessionEvent: Sendable {
    /// A socket is open (number counts from 1). Send `session.update` now; after a reconnect also re-seed context.
    case connected(connection: Int)
    case server(ServerEvent)
    /// A frame that could not be decoded (reported, never fatal).
    case undecodable(RealtimeDecodingError)
    /// The socket is gone. `reconnectAfter` is nil when no retry follows.
    case disconnected(RealtimeDisconnect, reconnectAfter: Duration?)
    /// Fatal: the session stopped retrying. `disconnect.description` is the user-facing reason.
    case stopped(RealtimeDisconnect)
}

/// Counters for `status`, `doctor` and tests.
public struct RealtimeSessionStatistics: Sendable, Equatable {
    public var connections = 0
    public var decodedEvents = 0
    public var unknownEvents = 0
    public var malformedFrames = 0
    public var unknownEventCounts: [String: Int] = [:]
    public var lastDisconnect: RealtimeDisconnect?
    public init() {}
}
