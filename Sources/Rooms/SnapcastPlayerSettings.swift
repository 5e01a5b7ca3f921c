import Snapcast

/// What a `SnapcastPlayer` connects to and calls itself.
public struct SnapcastPlayerSettings: Sendable {
    /// What the player is for.
    public enum Role: Sendable, Equatable {
        /// The group's music: yields to local media, its volume is the media volume.
        case group
        /// Announcements to every room (`stream`: the snapserver's stream for them): always heard, at the
        /// voice's volume, media ducked while they sound.
        case announcements(stream: String)
    }

    public var role: Role = .group
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
    /// How often the player tops up the mixer and checks its timers: the writer keeps 400 ms queued,
    /// so a tenth of a second is enough, and fewer wakeups are what an idle box costs.
    public var tick: Duration = .milliseconds(100)
    /// Audio below this (peak, of full scale 32767) is silence: an announcement stream between
    /// announcements.
    public var soundThreshold: Int16 = 64
    /// No audio for this long: the stream is idle (the player stops feeding the mixer).
    public var idleAfter: Duration = .seconds(1)
    /// Decoded audio held at most (the server sends it `buffer` ahead; snapclient keeps 5 s beyond that).
    public var queueSeconds = 8

    public init(host: String, port: Int, hello: SnapcastHello) {
        self.host = host
        self.port = port
        self.hello = hello
    }

    /// The same box's second client: the announcement stream's player (its own client of the server,
    /// `id#2`, in a group that plays `stream`).
    public func announcements(stream: String) -> SnapcastPlayerSettings {
        var settings = self
        settings.role = .announcements(stream: stream)
        settings.hello.instance = 2
        return settings
    }

    /// What the journal's lines of this player start with (after the `snapcast:` label).
    public var logPrefix: String {
        switch role {
        case .group: ""
        case .announcements: "announcements: "
        }
    }

    /// `host:port` as the owner wrote it, for the journal and `status`.
    public var server: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
