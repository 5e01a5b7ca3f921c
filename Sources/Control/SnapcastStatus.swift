/// The `snapcast` object of `status` (null when `[snapcast]` is off): the box as a player of a
/// Snapcast group.
public struct SnapcastStatus: Sendable, Equatable, Codable {
    /// `host:port` of the snapserver.
    public var server: String
    /// This box's client name and id in the group.
    public var name: String
    public var id: String
    public var connected: Bool
    /// The clock offset to the server is known (after the first time exchanges of a connection).
    public var synced: Bool
    /// The stream's codec as the server sends it (`flac`, `opus`, `pcm`, `ogg`), null before its header.
    public var codec: String?
    /// The group's audio reaches the speaker now.
    public var playing: Bool
    /// The server's volume for this box, 0.0...1.0, and its mute.
    public var volume: Double
    public var serverMuted: Bool
    /// How far the box's playback is from the group's timeline: the median of the last blocks, ms
    /// (positive: late).
    public var syncErrorMilliseconds: Double
    /// The spread of the measured clock offsets to the server (their interquartile range), ms.
    public var clockSpreadMilliseconds: Double
    /// This box's group (its name, else its id), the stream it plays and the streams the server has,
    /// as the control port last told them; null and empty while unknown.
    public var group: String?
    public var stream: String?
    public var streams: [String]

    public init(
        server: String, name: String, id: String, connected: Bool = false, synced: Bool = false, codec: String? = nil,
        playing: Bool = false, volume: Double = 1, serverMuted: Bool = false, syncErrorMilliseconds: Double = 0,
        clockSpreadMilliseconds: Double = 0, group: String? = nil, stream: String? = nil, streams: [String] = []
    ) {
        self.server = server
        self.name = name
        self.id = id
        self.connected = connected
        self.synced = synced
        self.codec = codec
        self.playing = playing
        self.volume = volume
        self.serverMuted = serverMuted
        self.syncErrorMilliseconds = syncErrorMilliseconds
        self.clockSpreadMilliseconds = clockSpreadMilliseconds
        self.group = group
        self.stream = stream
        self.streams = streams
    }

    enum CodingKeys: String, CodingKey {
        case server, name, id, connected, synced, codec, playing, volume, group, stream, streams
        case serverMuted = "server_muted"
        case syncErrorMilliseconds = "sync_error_ms"
        case clockSpreadMilliseconds = "clock_spread_ms"
    }

    /// The room keys are optional to read, so a status from a box without them still decodes.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            server: try c.decode(String.self, forKey: .server), name: try c.decode(String.self, forKey: .name),
            id: try c.decode(String.self, forKey: .id), connected: try c.decode(Bool.self, forKey: .connected),
            synced: try c.decode(Bool.self, forKey: .synced), codec: try c.decodeIfPresent(String.self, forKey: .codec),
            playing: try c.decode(Bool.self, forKey: .playing), volume: try c.decode(Double.self, forKey: .volume),
            serverMuted: try c.decode(Bool.self, forKey: .serverMuted),
            syncErrorMilliseconds: try c.decode(Double.self, forKey: .syncErrorMilliseconds),
            clockSpreadMilliseconds: try c.decode(Double.self, forKey: .clockSpreadMilliseconds),
            group: try c.decodeIfPresent(String.self, forKey: .group), stream: try c.decodeIfPresent(String.self, forKey: .stream),
            streams: try c.decodeIfPresent([String].self, forKey: .streams) ?? [])
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(server, forKey: .server)
        try c.encode(name, forKey: .name)
        try c.encode(id, forKey: .id)
        try c.encode(connected, forKey: .connected)
        try c.encode(synced, forKey: .synced)
        try c.encodeOrNull(codec, forKey: .codec)
        try c.encode(playing, forKey: .playing)
        try c.encode(volume, forKey: .volume)
        try c.encode(serverMuted, forKey: .serverMuted)
        try c.encode(syncErrorMilliseconds, forKey: .syncErrorMilliseconds)
        try c.encode(clockSpreadMilliseconds, forKey: .clockSpreadMilliseconds)
        try c.encodeOrNull(group, forKey: .group)
        try c.encodeOrNull(stream, forKey: .stream)
        try c.encode(streams, forKey: .streams)
    }
}
