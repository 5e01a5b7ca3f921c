/// `[snapcast]`: the box as a player of a Snapcast group (synchronized radio in every room).
public struct SnapcastConfig: Sendable, Equatable {
    public static let defaultStreamPort = 1704
    public static let defaultControlPort = 1705

    public var enabled = false
    /// `host:port` of the snapserver's stream port (`[::1]:1704` for IPv6; the port defaults to 1704).
    /// Required when enabled.
    public var server = ""
    /// This box's name in the group (what the snapserver's apps show); "": the host name.
    public var name = ""
    /// The client id the snapserver keeps this box's volume and group under; "": the name.
    public var id = ""
    /// The snapserver's stream for announcements to every room (`ctl say --rooms all`): a `tcp://` source
    /// on `announce_port` taking 48 kHz stereo S16LE; "": no announcements to every room.
    public var announceStream = "announce"
    public var announcePort = 4953
    /// The snapserver's JSON-RPC control port on the same host (the group, its stream, switching it).
    public var controlPort = defaultControlPort

    public init() {}

    /// `server` split into host and port; nil when it is not `host[:port]`.
    public var address: (host: String, port: Int)? { Self.parseAddress(server) }

    static func parseAddress(_ text: String) -> (host: String, port: Int)? {
        var host = Substring(text)
        var port = defaultStreamPort
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let p = Int(rest.dropFirst()) else { return nil }
                port = p
            }
        } else if let colon = host.lastIndex(of: ":") {
            guard let p = Int(host[host.index(after: colon)...]) else { return nil }
            port = p
            host = host[..<colon]
        }
        let allowed = host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-.:_".contains($0)) }
        guard !host.isEmpty, host.count <= 253, allowed, (1...65_535).contains(port) else { return nil }
        return (String(host), port)
    }
}
