import Logging
import NIOCore
import NIOPosix
import NIOWebSocket
import ServiceLifecycle
import Synchronization

/// The Realtime WebSocket session as a `Service`: connects, delivers decoded server events on `events`,
/// sends client events without blocking, reconnects under `RealtimeLifecycle` and stops on fatal errors.
/// `run()` returns when the session is shut down (graceful shutdown, cancellation, `shutdown()`) or stopped
/// for a fatal reason (then the last event is `.stopped`).
public final class RealtimeSession: Service, Sendable {
    public let events: AsyncStream<RealtimeSessionEvent>
    private let continuation: AsyncStream<RealtimeSessionEvent>.Continuation
    private let configuration: RealtimeConnectionConfiguration
    private let lifecycleConfiguration: RealtimeLifecycle<ContinuousClock.Instant>.Configuration
    private let group: any EventLoopGroup
    private let logger: Logger
    private let random: @Sendable () -> Double

    private struct Shared {
        var socket: RealtimeSocket?
        var lifecycle: RealtimeLifecycle<ContinuousClock.Instant>
        var statistics = RealtimeSessionStatistics()
        var shuttingDown = false
        var wake: CheckedContinuation<Void, Never>?
        var sleepOver = false
    }

    private let shared: Mutex<Shared>

    public init(
        configuration: RealtimeConnectionConfiguration,
        lifecycle: RealtimeLifecycle<ContinuousClock.Instant>.Configuration = .init(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.configuration = configuration
        self.lifecycleConfiguration = lifecycle
        self.group = eventLoopGroup
        self.logger = logger
        self.random = random
        (events, continuation) = AsyncStream.makeStream(of: RealtimeSessionEvent.self)
        shared = Mutex(Shared(lifecycle: RealtimeLifecycle(configuration: lifecycle)))
    }

    public var isConnected: Bool { shared.withLock { $0.socket != nil } }

    /// Totals over all connections so far, including the open one.
    public var statistics: RealtimeSessionStatistics {
        let (statistics, socket) = shared.withLock { ($0.statistics, $0.socket) }
        guard let socket else { return statistics }
        return Self.adding(socket.counters.withLock { $0 }, to: statistics)
    }

    private static func adding(_ counters: ServerEventDecoder, to statistics: RealtimeSessionStatistics) -> RealtimeSessionStatistics {
        var statistics = statistics
        statistics.decodedEvents += counters.decodedCount
        statistics.malformedFrames += counters.malformedCount
        statistics.unknownEvents += counters.unknownCount
        statistics.unknownEventCounts.merge(counters.unknownEventCounts, uniquingKeysWith: +)
        return statistics
    }

    /// Queues one client event; false when no socket is open (the caller keeps or drops it).
    @discardableResult
    public func send(_ event: ClientEvent, eventID: String? = nil) -> Bool {
        send(text: event.jsonText(eventID: eventID))
    }

    /// Queues a prebuilt JSON text frame (e.g. `AudioAppendFrame.text(samples:)`).
    @discardableResult
    public func send(text: String) -> Bool {
        guard let socket = shared.withLock({ $0.socket }) else { return false }
        return socket.send(text: text)
    }

    /// The engine is idle (no turn, no response, nothing playing): recycle if the session is old.
    public func noteIdle() {
        let socket = shared.withLock { shared -> RealtimeSocket? in
            guard case .recycle = shared.lifecycle.idle(at: .now) else { return nil }
            return shared.socket
        }
        if let socket {
            logger.info("Recycling the Realtime session before its 60-minute limit")
            socket.close(recycle: true)
        }
    }

    /// Closes the socket (code 1000) and ends `run()`.
    public func shutdown() {
        let (socket, wake) = shared.withLock { shared in
            shared.shuttingDown = true
            _ = shared.lifecycle.shutdown()
            defer { shared.wake = nil }
            return (shared.socket, shared.wake)
        }
        socket?.close()
        wake?.resume()
    }

    public func run() async throws {
        defer { continuation.finish() }
        try await withGracefulShutdownHandler {
            try await withTaskCancellationHandler {
                try await runLoop()
            } onCancel: {
                self.shutdown()
            }
        } onGracefulShutdown: {
            self.shutdown()
        }
    }

    private func runLoop() async throws {
        let endpoint: RealtimeEndpoint
        let dialer: WebSocketDialer
        do {
            endpoint = try RealtimeEndpoint(url: configuration.url, model: configuration.model)
            dialer = try WebSocketDialer(endpoint: endpoint, configuration: configuration, group: group)
        } catch let error as RealtimeEndpoint.ParseError {
            return stop(RealtimeDisconnect(kind: .fatal, reason: .connectFailed(error.description)))
        } catch let error as RealtimeDisconnect {
            return stop(error)
        } catch {
            return stop(RealtimeDisconnect(kind: .fatal, reason: .connectFailed("\(error)")))
        }
        var action = shared.withLock { $0.lifecycle.start() }
        while true {
            switch action {
            case .connect:
                if shared.withLock({ $0.shuttingDown }) { return }
                action = await connectOnce(dialer: dialer, endpoint: endpoint)
            case .recycle:
                action = .connect
            case .wait(let until):
                await sleep(until: until)
                if shared.withLock({ $0.shuttingDown }) { return }
                action = shared.withLock { $0.lifecycle.waitElapsed(at: .now) }
            case .stop(let disconnect):
                return stop(disconnect)
            case .finish, .none:
                return
            }
        }
    }

    private func connectOnce(dialer: WebSocketDialer, endpoint: RealtimeEndpoint) async -> RealtimeLifecycle<ContinuousClock.Instant>.Action {
        logger.debug("Connecting to the Realtime API", metadata: ["realtime.endpoint": "\(endpoint)"])
        let channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>
        do {
            channel = try await dialer.dial()
        } catch {
            return ended(error)
        }
        let socket = RealtimeSocket(channel: channel, configuration: configuration)
        let (number, shuttingDown) = shared.withLock { shared in
            _ = shared.lifecycle.connected(at: .now)
            shared.socket = socket
            shared.statistics.connections += 1
            return (shared.statistics.connections, shared.shuttingDown)
        }
        if shuttingDown { socket.close() }
        logger.info("Realtime API connected", metadata: ["realtime.connection": "\(number)"])
        continuation.yield(.connected(connection: number))
        let continuation = continuation
        let outcome = await socket.run { output in
            switch output {
            case .event(let event): continuation.yield(.server(event))
            case .undecodable(let problem): continuation.yield(.undecodable(problem))
            }
        }
        let counters = socket.counters.withLock { $0 }
        shared.withLock { shared in
            shared.socket = nil
            shared.statistics = Self.adding(counters, to: shared.statistics)
        }
        return ended(outcome)
    }

    private func ended(_ disconnect: RealtimeDisconnect) -> RealtimeLifecycle<ContinuousClock.Instant>.Action {
        let now = ContinuousClock.now
        let (action, shuttingDown) = shared.withLock { shared in
            shared.statistics.lastDisconnect = disconnect
            var action = shared.lifecycle.ended(disconnect, at: now, unitRandom: random())
            if shared.shuttingDown, case .wait = action { action = .finish }
            return (action, shared.shuttingDown)
        }
        var delay: Duration?
        switch action {
        case .wait(let until): delay = now.duration(to: until)
        case .connect: delay = .zero
        default: delay = nil
        }
        if disconnect.kind == .transient || disconnect.reason == .recycled {
            logger.notice("Realtime connection ended", metadata: ["realtime.reason": "\(disconnect)"])
        }
        if !shuttingDown || disconnect.kind != .closedByClient {
            continuation.yield(.disconnected(disconnect, reconnectAfter: delay))
        }
        return action
    }

    private func stop(_ disconnect: RealtimeDisconnect) {
        logger.error("Realtime session stopped", metadata: ["realtime.reason": "\(disconnect)"])
        continuation.yield(.stopped(disconnect))
    }

    /// Sleeps until `until`, or until `shutdown()` wakes it.
    private func sleep(until: ContinuousClock.Instant) async {
        shared.withLock { $0.sleepOver = false }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                try? await Task.sleep(until: until, clock: .continuous)
            }
            group.addTask {
                await withCheckedContinuation { (wake: CheckedContinuation<Void, Never>) in
                    let resumeNow = self.shared.withLock { shared -> Bool in
                        if shared.shuttingDown || shared.sleepOver { return true }
                        shared.wake = wake
                        return false
                    }
                    if resumeNow { wake.resume() }
                }
            }
            await group.next()
            group.cancelAll()
            let wake = shared.withLock { shared in
                shared.sleepOver = true
                defer { shared.wake = nil }
                return shared.wake
            }
            wake?.resume()
        }
    }
}
