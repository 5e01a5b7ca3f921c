import NIOCore
import NIOPosix
import NIOWebSocket

/// What an open connection delivers while it runs, in arrival order.
public enum RealtimeConnectionOutput: Sendable {
    case server(ServerEvent)
    /// A frame that could not be decoded (reported, never fatal).
    case undecodable(RealtimeDecodingError)
}

/// One Realtime WebSocket connection, no retries: `open` dials once (or throws how it failed), `run`
/// reads until the connection ends and returns how it ended. Whoever owns it decides what happens next.
/// `run` executes in the caller's task (the connection has no tasks of its own outside `run`).
public final class RealtimeConnection: Sendable {
    private let socket: RealtimeSocket

    private init(socket: RealtimeSocket) {
        self.socket = socket
    }

    /// Dials `configuration.url` (TCP, TLS for wss, HTTP upgrade) within `configuration.connectTimeout`.
    public static func open(
        configuration: RealtimeConnectionConfiguration,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws(RealtimeDisconnect) -> RealtimeConnection {
        let endpoint: RealtimeEndpoint
        do {
            endpoint = try RealtimeEndpoint(url: configuration.url, model: configuration.model)
        } catch {
            throw RealtimeDisconnect(kind: .fatal, reason: .invalidURL(error.description))
        }
        let dialer = try WebSocketDialer(endpoint: endpoint, configuration: configuration, group: eventLoopGroup)
        let channel = try await dialer.dial()
        return RealtimeConnection(socket: RealtimeSocket(channel: channel, configuration: configuration))
    }

    /// Reads and decodes frames until the connection ends; returns why it ended. Cancelling the calling
    /// task drops the connection.
    public func run(deliver: @Sendable (RealtimeConnectionOutput) -> Void) async -> RealtimeDisconnect {
        await withTaskCancellationHandler {
            await socket.run { output in
                switch output {
                case .event(let event): deliver(.server(event))
                case .undecodable(let problem): deliver(.undecodable(problem))
                }
            }
        } onCancel: {
            socket.abort()
        }
    }

    /// Queues one text frame; false once the connection is closing or gone.
    @discardableResult
    public func send(text: String) -> Bool { socket.send(text: text) }

    /// Starts the close handshake (code 1000); `run` then returns `.closedByClient`.
    public func close() { socket.close() }

    /// Frames decoded, unknown and malformed on this connection so far.
    public var counters: ServerEventDecoder { socket.counters.withLock { $0 } }
}
