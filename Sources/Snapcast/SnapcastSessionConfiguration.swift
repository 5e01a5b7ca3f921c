import Basics

/// How a `SnapcastSession` talks to the server; the defaults are snapclient 0.26's.
public struct SnapcastSessionConfiguration: Sendable {
    public var hello: SnapcastHello
    /// Time requests right after connecting, each sent as soon as the previous one is answered.
    public var burstCount: Int
    /// Between time requests after the burst.
    public var syncInterval: Duration
    /// A Hello or Time request unanswered this long drops the connection.
    public var replyTimeout: Duration
    public var reconnect: Backoff
    /// Where each reconnect delay falls within the backoff's jitter, 0...1; random by default (tests fix it).
    public var jitterUnit: @Sendable () -> Double

    public init(
        hello: SnapcastHello, burstCount: Int = 50, syncInterval: Duration = .seconds(1), replyTimeout: Duration = .seconds(2),
        reconnect: Backoff = .snapcastReconnect, jitterUnit: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
    ) {
        self.hello = hello
        self.burstCount = max(burstCount, 1)
        self.syncInterval = syncInterval
        self.replyTimeout = replyTimeout
        self.reconnect = reconnect
        self.jitterUnit = jitterUnit
    }
}
