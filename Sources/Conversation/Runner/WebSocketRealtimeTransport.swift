import Realtime

/// `RealtimeTransport` over the Realtime module's single `RealtimeConnection`: one WebSocket per connect,
/// no retries of its own (the runner decides about reconnecting from the typed `RealtimeDisconnect`).
public struct WebSocketRealtimeTransport: RealtimeTransport {
    public let configuration: RealtimeConnectionConfiguration

    public init(configuration: RealtimeConnectionConfiguration) {
        self.configuration = configuration
    }

    public var context: RealtimeConnectionContext { configuration.context }

    public func connect() async throws(RealtimeDisconnect) -> any RealtimeLink {
        WebSocketRealtimeLink(connection: try await RealtimeConnection.open(configuration: configuration))
    }
}

/// One open `RealtimeConnection`, its output mapped to `RealtimeLinkEvent`.
struct WebSocketRealtimeLink: RealtimeLink {
    let connection: RealtimeConnection

    func run(deliver: @escaping @Sendable (RealtimeLinkEvent) -> Void) async -> RealtimeDisconnect {
        await connection.run { output in
            switch output {
            case .server(let event): deliver(.server(event))
            case .undecodable(let problem): deliver(.undecodable("\(problem)"))
            }
        }
    }

    func send(_ text: String) async throws(RealtimeSendError) {
        guard connection.send(text: text) else { throw RealtimeSendError(reason: "the socket is closed") }
    }

    func close() { connection.close() }
}
