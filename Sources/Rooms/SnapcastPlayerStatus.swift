/// The player at a glance (for `status`): the connection, the clock sync and what plays.
public struct SnapcastPlayerStatus: Sendable, Equatable {
    public var connected = false
    public var synced = false
    public var codec: String?
    public var playing = false
    /// The server's volume for this box, 0...100, and its mute.
    public var volume = 100
    public var serverMuted = false
    /// The server's end-to-end buffer (what it sends is heard this much later), ms.
    public var bufferMs = 1_000
    /// Median error of the last blocks (heard minus due), ns.
    public var syncErrorNanoseconds: Int64 = 0
    /// Interquartile range of the measured clock offsets, µs.
    public var clockSpreadMicroseconds: Int64 = 0
    /// This box's group as the control port last told it (name, else id), its stream and the streams
    /// the server has; nil and empty while unknown.
    public var group: String?
    public var stream: String?
    public var streams: [String] = []

    public init() {}
}
