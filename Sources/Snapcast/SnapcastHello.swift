import Basics

/// Who this client is, sent once per connection (`hello.hpp`). The server names the client by `id`
/// (`id#instance` when `instance` is not 1), so `id` must be stable and unique per box.
public struct SnapcastHello: Sendable, Hashable {
    public var mac: String
    public var hostName: String
    /// The snapclient release this client behaves like; the server only logs and reports it.
    public var version: String
    public var clientName: String
    public var os: String
    public var arch: String
    public var instance: Int
    public var id: String

    public init(
        id: String, hostName: String, mac: String = "00:00:00:00:00:00", version: String = "0.26.0", clientName: String = "jarvis-voice",
        os: String = "Linux", arch: String = "unknown", instance: Int = 1
    ) {
        self.mac = mac
        self.hostName = hostName
        self.version = version
        self.clientName = clientName
        self.os = os
        self.arch = arch
        self.instance = instance
        self.id = id
    }

    /// The id the server's control API knows this client by.
    public var clientID: String { instance == 1 ? id : "\(id)#\(instance)" }

    /// The JSON the server reads, with exactly snapclient's keys.
    public var jsonText: String {
        JSONValue.object([
            "MAC": .string(mac), "HostName": .string(hostName), "Version": .string(version), "ClientName": .string(clientName),
            "OS": .string(os), "Arch": .string(arch), "Instance": .number(Double(instance)), "ID": .string(id),
            "SnapStreamProtocolVersion": 2
        ]).jsonText
    }
}
