import Logging
import Realtime

/// `RealtimeTransport` over the Realtime module's WebSocket `RealtimeSession`: one session per connect,
/// with its own reconnecting switched off (the runner and the engine decide when to reconnect).
public struct WebSocketRealtimeTransport: RealtimeTransport {
    public let configuration: RealtimeConnectionConfiguration
    private let logger: Logger

    public init(configuration: RealtimeConnectionConfiguration, logger: Logger = Logger(label: "realtime")) {
        self.configuration = configuration
        var filtered = logger
        filtered.handler = SingleShotSessionLogHandler(inner: logger.handler)
        self.logger = filtered
    }

    public func connect() async throws(RealtimeConnectError) -> any RealtimeLink {
        let session = RealtimeSession(
            configuration: configuration, lifecycle: .init(policy: ReconnectPolicy(maximumAttempts: 0)), logger: logger)
        let link = WebSocketRealtimeLink(session: session)
        let opened = await withTaskCancellationHandler {
            await link.opened()
        } onCancel: {
            session.shutdown()
        }
        switch opened {
        case .success:
            return link
        case .failure(let error):
            await link.close()
            throw error
        }
    }
}

/// One open `RealtimeSession`, its events mapped to `RealtimeLinkEvent`.
final class WebSocketRealtimeLink: RealtimeLink {
    let events: AsyncStream<RealtimeLinkEvent>
    private let session: RealtimeSession
    private let outcome: AsyncStream<Result<Void, RealtimeConnectError>>
    private let runTask: Task<Void, Never>
    private let forwardTask: Task<Void, Never>

    init(session: RealtimeSession) {
        self.session = session
        let (events, continuation) = AsyncStream.makeStream(of: RealtimeLinkEvent.self)
        let (outcome, opened) = AsyncStream.makeStream(of: Result<Void, RealtimeConnectError>.self)
        self.events = events
        self.outcome = outcome
        runTask = Task { try? await session.run() }
        forwardTask = Task {
            var outcomeReported = false
            var closed = false
            for await event in session.events {
                switch event {
                case .connected:
                    if !outcomeReported {
                        outcomeReported = true
                        opened.yield(.success(()))
                        opened.finish()
                    }
                case .server(let serverEvent):
                    continuation.yield(.server(serverEvent))
                case .undecodable(let problem):
                    continuation.yield(.undecodable("\(problem)"))
                case .disconnected(let disconnect, _), .stopped(let disconnect):
                    let reason = Self.reason(disconnect)
                    if !outcomeReported {
                        outcomeReported = true
                        opened.yield(.failure(RealtimeConnectError(reason: reason, fatal: disconnect.isFatal)))
                        opened.finish()
                    } else if !closed, disconnect.kind != .closedByClient {
                        // The first report counts: with retries off, a transient drop is followed by "gave up".
                        closed = true
                        continuation.yield(.closed(reason: reason, fatal: disconnect.isFatal))
                    }
                }
            }
            if !outcomeReported {
                opened.yield(.failure(RealtimeConnectError(reason: "the connection attempt was abandoned", fatal: false)))
                opened.finish()
            }
            continuation.finish()
        }
    }

    /// The reason without the session's own retry advice (the engine decides about retries).
    private static func reason(_ disconnect: RealtimeDisconnect) -> String {
        var text = disconnect.description
        for suffix in ["; will reconnect", "; not retrying"] where text.hasSuffix(suffix) {
            text.removeLast(suffix.count)
        }
        return text
    }

    func opened() async -> Result<Void, RealtimeConnectError> {
        for await result in outcome { return result }
        return .failure(RealtimeConnectError(reason: "the connection attempt was abandoned", fatal: false))
    }

    func send(_ text: String) async throws(RealtimeSendError) {
        guard session.send(text: text) else { throw RealtimeSendError(reason: "the socket is closed") }
    }

    func close() async {
        session.shutdown()
        await runTask.value
        await forwardTask.value
    }
}

/// With its retries off, the session reports every ordinary drop a second time as "stopped: gave up after
/// 0 failed connection attempts" at error level; that line is noise here (the runner logs the drop and
/// what the conversation does about it), so it goes to debug. Real fatal stops keep their level.
struct SingleShotSessionLogHandler: LogHandler {
    var inner: any LogHandler

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        if event.message.description.hasPrefix("Realtime session stopped"),
           event.metadata?["realtime.reason"]?.description.contains("gave up after 0 ") == true {
            event.level = .debug
            guard inner.logLevel <= .debug else { return }
        }
        inner.log(event: event)
    }
}
