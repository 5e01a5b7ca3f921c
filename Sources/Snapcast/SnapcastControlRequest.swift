import Basics

/// One JSON-RPC 2.0 request to a snapserver's control port (TCP 1705), written as one line.
public struct SnapcastControlRequest: Sendable, Hashable {
    public var id: Int
    public var method: String
    public var params: JSONValue?

    public init(id: Int, method: String, params: JSONValue? = nil) {
        self.id = id
        self.method = method
        self.params = params
    }

    /// The whole state: groups, their clients and the streams.
    public static func serverStatus(id: Int) -> Self { Self(id: id, method: "Server.GetStatus") }

    /// Makes group `groupID` play stream `streamID`.
    public static func setGroupStream(id: Int, groupID: String, streamID: String) -> Self {
        Self(id: id, method: "Group.SetStream", params: ["id": .string(groupID), "stream_id": .string(streamID)])
    }

    /// Sets one client's volume (0...100) and mute; 0.26 has no group volume.
    public static func setClientVolume(id: Int, clientID: String, percent: Int, muted: Bool) -> Self {
        let volume: JSONValue = ["percent": .number(Double(min(max(percent, 0), 100))), "muted": .bool(muted)]
        return Self(id: id, method: "Client.SetVolume", params: ["id": .string(clientID), "volume": volume])
    }

    /// The request as the server reads it: compact JSON and a newline.
    public var line: String {
        var object: [String: JSONValue] = ["jsonrpc": "2.0", "id": .number(Double(id)), "method": .string(method)]
        if let params { object["params"] = params }
        return JSONValue.object(object).jsonText + "\n"
    }
}
