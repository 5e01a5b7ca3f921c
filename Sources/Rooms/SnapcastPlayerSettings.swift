import Snapcast

/// What a `SnapcastPlayer` connects to and calls itself.
public struct SnapcastPlayerSettings: Sendable {
    public var host: String
    public var port: Int
    public var hello: SnapcastHello
    /// The snapserver's JSON-RPC control port on `host`: the group's stream and switching it.
    public var controlPort = 1705
    /// Each control request's answer must come within this.
    public var controlTimeout: Duration = .seconds(3)
    /// How often the group and its streams are asked for while connected.
    public var controlPollInterval: Duration = .seconds(3)
    public var connectTimeout: Duration = .seconds(5)
    /// How often the player tops up the mixer and checks its timers.
    public var tick: Duration = .milliseconds(10)
    /// No audio for this long: the stream is idle (the player stops feeding the mixer).
    public var idleAfter: Duration = .seconds(1)
    /// Decoded audio held at most (the server sends it `buffer` ahead; snapclient keeps 5 s beyond that).
    public var queueSeconds = 8

    public init(host: String, port: Int, hello: SnapcastHello) {
        self.host = host
        self.port = port
        self.hello = hello
    }

    /// `host:port` as the owner wrote it, for the journal and `status`.
    public var server: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
