/// The session at a glance, for `status` and the journal.
public struct SnapcastSyncState: Sendable, Hashable {
    public var connected: Bool
    /// The time sync has its minimum samples (the connect burst's).
    public var synced: Bool
    /// Server clock minus ours, the median of the window; nil before the first reply.
    public var offsetNanoseconds: Int64?
    /// Interquartile range of the offset samples in µs: the sync's quality.
    public var spreadMicroseconds: Int64?
    public var samples: Int
    /// The server's last ServerSettings on this connection (buffer, latency, volume, mute).
    public var settings: SnapcastServerSettings?
    /// The codec of the last CodecHeader on this connection.
    public var codec: String?

    public init(
        connected: Bool = false, synced: Bool = false, offsetNanoseconds: Int64? = nil, spreadMicroseconds: Int64? = nil, samples: Int = 0,
        settings: SnapcastServerSettings? = nil, codec: String? = nil
    ) {
        self.connected = connected
        self.synced = synced
        self.offsetNanoseconds = offsetNanoseconds
        self.spreadMicroseconds = spreadMicroseconds
        self.samples = samples
        self.settings = settings
        self.codec = codec
    }
}
