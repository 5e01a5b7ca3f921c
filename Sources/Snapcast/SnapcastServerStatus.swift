import Basics

/// What `Server.GetStatus` says of the house: the groups with their clients, and the streams a group can
/// play. Only what this box uses is read; everything else in the result is ignored.
public struct SnapcastServerStatus: Sendable, Hashable {
    public struct Client: Sendable, Hashable {
        /// The Hello ID (`ID#N` when the instance is not 1).
        public var id: String
        /// The name set on the server (`config.name`), else the host's name.
        public var name: String
        public var connected: Bool
        /// 0...100.
        public var volume: Int
        public var muted: Bool

        public init(id: String, name: String, connected: Bool = true, volume: Int = 100, muted: Bool = false) {
            self.id = id
            self.name = name
            self.connected = connected
            self.volume = volume
            self.muted = muted
        }
    }

    public struct Group: Sendable, Hashable {
        public var id: String
        /// Often empty: snapserver names no group until someone does.
        public var name: String
        public var muted: Bool
        public var streamID: String
        public var clients: [Client]

        public init(id: String, name: String = "", muted: Bool = false, streamID: String, clients: [Client]) {
            self.id = id
            self.name = name
            self.muted = muted
            self.streamID = streamID
            self.clients = clients
        }
    }

    public struct Stream: Sendable, Hashable {
        public enum Status: String, Sendable, Hashable {
            case idle, playing, disabled, unknown
        }
        public var id: String
        public var status: Status

        public init(id: String, status: Status) {
            self.id = id
            self.status = status
        }
    }

    public var groups: [Group]
    public var streams: [Stream]

    public init(groups: [Group], streams: [Stream]) {
        self.groups = groups
        self.streams = streams
    }

    /// Reads the `result` of `Server.GetStatus` (`{"server": {"groups": [...], "streams": [...]}}`).
    public init(result: JSONValue) throws(SnapcastControlError) {
        guard let server = result["server"], case .object = server else { throw .malformedStatus("server") }
        guard case .array(let groups)? = server["groups"] else { throw .malformedStatus("server.groups") }
        guard case .array(let streams)? = server["streams"] else { throw .malformedStatus("server.streams") }
        self.groups = try groups.map { group throws(SnapcastControlError) in try Self.group(group) }
        self.streams = try streams.map { stream throws(SnapcastControlError) in
            guard let id = stream["id"]?.stringValue else { throw .malformedStatus("streams.id") }
            return Stream(id: id, status: stream["status"]?.stringValue.flatMap(Stream.Status.init) ?? .unknown)
        }
    }

    private static func group(_ json: JSONValue) throws(SnapcastControlError) -> Group {
        guard let id = json["id"]?.stringValue else { throw .malformedStatus("groups.id") }
        guard case .array(let clients)? = json["clients"] else { throw .malformedStatus("groups.clients") }
        return Group(
            id: id, name: json["name"]?.stringValue ?? "", muted: json["muted"] == .bool(true),
            streamID: json["stream_id"]?.stringValue ?? "",
            clients: try clients.map { client throws(SnapcastControlError) in try Self.client(client) })
    }

    private static func client(_ json: JSONValue) throws(SnapcastControlError) -> Client {
        guard let id = json["id"]?.stringValue else { throw .malformedStatus("clients.id") }
        let config = json["config"]
        let configured = config?["name"]?.stringValue ?? ""
        let volume = config?["volume"]?["percent"]?.numberValue.map { Int(min(max($0, 0), 100).rounded()) } ?? 100
        return Client(
            id: id, name: configured.isEmpty ? json["host"]?["name"]?.stringValue ?? "" : configured,
            connected: json["connected"] == .bool(true), volume: volume,
            muted: config?["volume"]?["muted"] == .bool(true))
    }

    /// The group client `clientID` is in, nil when the server does not know it.
    public func group(containing clientID: String) -> Group? {
        groups.first { group in group.clients.contains { $0.id == clientID } }
    }

    public func stream(id: String) -> Stream? { streams.first { $0.id == id } }
}
