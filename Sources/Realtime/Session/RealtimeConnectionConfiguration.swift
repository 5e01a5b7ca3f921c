/// An API key that never prints itself.
public struct RealtimeAPIKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    let value: String
    public init(_ value: String) { self.value = value }
    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
}

/// Settings for one Realtime WebSocket connection.
public struct RealtimeConnectionConfiguration: Sendable {
    /// `realtime.url`, e.g. `wss://api.openai.com/v1/realtime`.
    public var url: String
    /// `realtime.model`, appended as `?model=`. Default `RealtimeModels.defaultID`.
    public var model: String
    public var apiKey: RealtimeAPIKey
    /// Where the key was read from, named when the API rejects it.
    public var apiKeySource: String
    /// Largest accepted frame (after reassembly of fragments). Default 16 MiB: audio deltas and
    /// `session.created` exceed NIO's 16 KiB default.
    public var maxFrameSize: Int
    /// TCP connect plus HTTP upgrade. Default 10 s.
    public var connectTimeout: Duration
    /// Keepalive ping period. Default 20 s.
    public var pingInterval: Duration
    /// No frame at all for `pingInterval + pongTimeout` means the connection is dead. Default 10 s.
    public var pongTimeout: Duration
    /// Wait this long for the server's close reply after we sent a close frame. Default 2 s.
    public var closeTimeout: Duration

    public init(
        url: String = "wss://api.openai.com/v1/realtime", model: String = RealtimeModels.defaultID, apiKey: RealtimeAPIKey,
        apiKeySource: String = "the configured API key", maxFrameSize: Int = 16 << 20, connectTimeout: Duration = .seconds(10),
        pingInterval: Duration = .seconds(20),
        pongTimeout: Duration = .seconds(10), closeTimeout: Duration = .seconds(2)
    ) {
        self.url = url
        self.model = model
        self.apiKey = apiKey
        self.apiKeySource = apiKeySource
        self.maxFrameSize = maxFrameSize
        self.connectTimeout = connectTimeout
        self.pingInterval = pingInterval
        self.pongTimeout = pongTimeout
        self.closeTimeout = closeTimeout
    }

    /// What this connection's failures are described with.
    public var context: RealtimeConnectionContext { RealtimeConnectionContext(model: model, apiKeySource: apiKeySource) }
}
