import Basics

/// One Snapcast client connection as a pure state machine: the I/O layer feeds it what happened (connected,
/// bytes read, a timer tick, disconnected) with the monotonic time in ns, and carries out the returned
/// `SnapcastEffect`s in order. No sockets, clocks or threads here, so every schedule is testable with a
/// manual clock.
///
/// On connect it sends the Hello, then a burst of Time requests (each as soon as the last is answered), then
/// one per `syncInterval`. A Hello or Time request unanswered after `replyTimeout` drops the connection and
/// reconnects after the backoff, which starts over once the server has sent its ServerSettings. The time
/// sync starts over on every connection. Call `tick` at least every ~100 ms, or at `nextDeadline`.
public struct SnapcastSession: Sendable {
    public let configuration: SnapcastSessionConfiguration
    public private(set) var timeSync: SnapcastTimeSync

    private enum Phase { case idle, connected, reconnecting }
    private struct Request {
        var id: UInt16
        var sentAt: Int64
    }

    private var phase = Phase.idle
    private var decoder = SnapcastFrameDecoder()
    private var ids = SnapcastRequestIDs()
    private var backoff: Backoff
    private var pendingHello: Request?
    private var pendingTime: Request?
    private var timeRequestsSent = 0
    private var nextTimeRequestAt: Int64?
    private var settings: SnapcastServerSettings?
    private var codec: String?

    public init(configuration: SnapcastSessionConfiguration) {
        self.configuration = configuration
        backoff = configuration.reconnect
        timeSync = SnapcastTimeSync(minimumSamples: configuration.burstCount)
    }

    public var state: SnapcastSyncState {
        SnapcastSyncState(
            connected: phase == .connected, synced: phase == .connected && timeSync.isSynced, offsetNanoseconds: timeSync.offsetNanoseconds,
            spreadMicroseconds: timeSync.spreadMicroseconds, samples: timeSync.sampleCount, settings: settings, codec: codec)
    }

    /// Our `localNow` on the server's clock; nil until the first Time reply of this connection.
    public func serverNow(localNow: Int64) -> Int64? { timeSync.serverNow(localNow: localNow) }

    /// When `tick` next has something to do (a reply timeout or a due Time request); nil when not connected.
    public var nextDeadline: Int64? {
        guard phase == .connected else { return nil }
        let timeout = configuration.replyTimeout.nanoseconds
        return [pendingHello.map { $0.sentAt &+ timeout }, pendingTime.map { $0.sentAt &+ timeout }, nextTimeRequestAt].compactMap { $0 }.min()
    }

    /// A connection is open: everything about the last one is forgotten, and the Hello and the first Time
    /// request go out.
    public mutating func connected(now: Int64) -> [SnapcastEffect] {
        phase = .connected
        decoder.reset()
        timeSync.reset()
        settings = nil
        codec = nil
        pendingTime = nil
        timeRequestsSent = 0
        nextTimeRequestAt = nil
        let helloID = ids.next()
        pendingHello = Request(id: helloID, sentAt: now)
        return [.send(SnapcastMessageEncoder.hello(configuration.hello, id: helloID, now: now)), sendTimeRequest(now: now)]
    }

    /// A connection attempt (after `reconnect`) failed: try again after the next backoff delay.
    public mutating func connectFailed(now: Int64) -> [SnapcastEffect] {
        phase = .reconnecting
        return [reconnect()]
    }

    /// The server closed the connection or it broke. Nothing to do when the session itself dropped it.
    public mutating func disconnected(now: Int64) -> [SnapcastEffect] {
        guard phase == .connected else { return [] }
        phase = .reconnecting
        return [reconnect()]
    }

    /// Bytes read from the socket at `now`.
    public mutating func received(_ bytes: some Sequence<UInt8>, now: Int64) -> [SnapcastEffect] {
        guard phase == .connected else { return [] }
        decoder.append(bytes)
        var effects: [SnapcastEffect] = []
        while phase == .connected {
            do throws(SnapcastProtocolError) {
                guard let frame = try decoder.next(receivedAt: now) else { break }
                effects += handle(frame, now: now)
            } catch {
                effects += fail(error)
            }
        }
        return effects
    }

    /// One message the I/O layer framed itself (its header's `receivedNanoseconds` set to when it was read).
    public mutating func received(_ frame: SnapcastFrame, now: Int64) -> [SnapcastEffect] {
        guard phase == .connected else { return [] }
        return handle(frame, now: now)
    }

    /// Time passed: a request may have timed out, or the next Time request may be due.
    public mutating func tick(now: Int64) -> [SnapcastEffect] {
        guard phase == .connected else { return [] }
        let timeout = configuration.replyTimeout.nanoseconds
        if let hello = pendingHello, now &- hello.sentAt >= timeout { return fail(.noReply(to: .hello, id: hello.id)) }
        if let time = pendingTime, now &- time.sentAt >= timeout { return fail(.noReply(to: .time, id: time.id)) }
        if pendingTime == nil, let due = nextTimeRequestAt, now >= due { return [sendTimeRequest(now: now)] }
        return []
    }

    /// The local volume or mute changed (a voice command, a button): tell the server, so other UIs follow.
    public mutating func localVolumeChanged(volume: Int, muted: Bool, now: Int64) -> [SnapcastEffect] {
        guard phase == .connected else { return [] }
        return [.send(SnapcastMessageEncoder.clientInfo(volume: volume, muted: muted, id: ids.next(), now: now))]
    }

    private mutating func handle(_ frame: SnapcastFrame, now: Int64) -> [SnapcastEffect] {
        switch frame.message {
        case .serverSettings(let new):
            if pendingHello?.id == frame.header.refersTo { pendingHello = nil }
            // The server knows us: the next failure waits the initial delay again.
            backoff.reset()
            guard new != settings else { return [] }
            settings = new
            return [.settingsChanged(new)]
        case .codecHeader(let name, let payload):
            codec = name
            return [.codecHeader(codec: name, payload: payload)]
        case .wireChunk(let timestamp, let payload):
            return [.chunk(serverTimestampNanoseconds: timestamp, payload: payload)]
        case .time(let latency):
            // A late reply to a request already given up on (or of an earlier connection) is ignored.
            guard let request = pendingTime, request.id == frame.header.refersTo else { return [] }
            pendingTime = nil
            timeSync.addReply(
                latencyNanoseconds: latency, sentNanoseconds: frame.header.sentNanoseconds, receivedNanoseconds: frame.header.receivedNanoseconds)
            if timeRequestsSent < configuration.burstCount { return [sendTimeRequest(now: now)] }
            nextTimeRequestAt = now &+ configuration.syncInterval.nanoseconds
            return []
        case .error(let code, let message, let details):
            return [.serverError(code: code, message: message, details: details)]
        case .skipped:
            return []
        }
    }

    private mutating func sendTimeRequest(now: Int64) -> SnapcastEffect {
        let id = ids.next()
        pendingTime = Request(id: id, sentAt: now)
        nextTimeRequestAt = nil
        timeRequestsSent = timeRequestsSent < Int.max ? timeRequestsSent + 1 : timeRequestsSent
        return .send(SnapcastMessageEncoder.timeRequest(id: id, now: now))
    }

    private mutating func fail(_ error: SnapcastProtocolError) -> [SnapcastEffect] {
        phase = .reconnecting
        pendingHello = nil
        pendingTime = nil
        nextTimeRequestAt = nil
        return [.protocolError(error), reconnect()]
    }

    private mutating func reconnect() -> SnapcastEffect {
        .reconnect(after: backoff.next(unit: configuration.jitterUnit()))
    }
}
