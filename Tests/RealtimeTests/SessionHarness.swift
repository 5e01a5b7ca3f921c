import Realtime
import Synchronization
import TestProcess
import TestSupport

/// Runs single `RealtimeConnection`s against a fresh Realtime stand-in and records what they report. The
/// harness plays the connection's owner: after a transient or expired end it opens the next connection
/// (at most `maximumAttempts` failed opens in a row), after a fatal one it records `.stopped`.
final class SessionHarness: Sendable {
    enum Event: Sendable {
        case connected(connection: Int)
        case server(ServerEvent)
        case undecodable(RealtimeDecodingError)
        /// A connection ended, or an open failed, and the harness tries again.
        case disconnected(RealtimeDisconnect)
        /// Fatal, or `maximumAttempts` failed opens: no further connection.
        case stopped(RealtimeDisconnect)
    }

    let standIn: RealtimeStandIn
    let session = CurrentConnection()
    private let recorded = Mutex<[Event]>([])

    static let askJarvis = FunctionTool(
        name: "ask_jarvis", description: "Ask Jarvis, the owner's agent.",
        parameters: ["type": "object", "properties": ["query": ["type": "string"]], "required": ["query"]])

    private init(standIn: RealtimeStandIn) {
        self.standIn = standIn
    }

    static func run(
        script: RealtimeStandInScript = .init(), apiKey: String? = nil, maximumAttempts: Int = 5,
        urlTransform: (String) -> String = { $0 }, pingInterval: Duration = .seconds(1), pongTimeout: Duration? = nil,
        _ body: (SessionHarness) async throws -> Void
    ) async throws {
        let standIn = try await RealtimeStandIn.start(script: script)
        let configuration = RealtimeConnectionConfiguration(
            url: urlTransform(standIn.url), model: RealtimeModels.defaultID, apiKey: RealtimeAPIKey(apiKey ?? script.apiKey),
            // The default pong timeout is long: the stand-in answers pings from this (busy) test process, and a
            // 2 s stall under the full suite's load used to drop the connection mid-response. So is the connect
            // timeout: with 2 s, the stand-in's answers to five opens in a row can come too late under that load
            // (the 401 test stops on five upgrade timeouts).
            connectTimeout: .seconds(10), pingInterval: pingInterval, pongTimeout: pongTimeout ?? .seconds(10),
            closeTimeout: .milliseconds(500))
        let harness = SessionHarness(standIn: standIn)
        var failure: (any Error)?
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await harness.connectLoop(configuration, maximumAttempts: maximumAttempts) }
            do { try await body(harness) } catch { failure = error }
            harness.session.shutdown()
            await group.waitForAll()
        }
        await standIn.shutdown()
        if let failure { throw failure }
    }

    private func connectLoop(_ configuration: RealtimeConnectionConfiguration, maximumAttempts: Int) async {
        var failures = 0
        var number = 0
        while !session.isShutDown {
            let connection: RealtimeConnection
            do {
                connection = try await RealtimeConnection.open(configuration: configuration)
            } catch {
                failures += 1
                if error.isFatal || failures >= maximumAttempts {
                    record(.stopped(error))
                    return
                }
                record(.disconnected(error))
                try? await Task.sleep(for: .milliseconds(20))
                continue
            }
            failures = 0
            number += 1
            guard session.attach(connection) else {
                connection.close()
                _ = await connection.run { _ in }
                return
            }
            record(.connected(connection: number))
            let end = await connection.run { [self] output in
                switch output {
                case .server(let event): record(.server(event))
                case .undecodable(let problem): record(.undecodable(problem))
                }
            }
            session.detach()
            switch end.kind {
            case .closedByClient: return
            case .fatal:
                record(.stopped(end))
                return
            case .transient, .expired:
                record(.disconnected(end))
            }
        }
    }

    private func record(_ event: Event) { recorded.withLock { $0.append(event) } }

    var events: [Event] { recorded.withLock { $0 } }

    var serverEvents: [ServerEvent] {
        events.compactMap { if case .server(let event) = $0 { event } else { nil } }
    }

    /// Waits until `count` recorded events satisfy `predicate`; returns the last match.
    @discardableResult
    func waitFor(count: Int = 1, timeout: Duration = hangTimeout, _ predicate: (Event) -> Bool) async -> Event? {
        await TestProcess.waitFor(timeout: timeout) {
            let matches = events.filter(predicate)
            return matches.count >= count ? matches.last : nil
        }
    }

    @discardableResult
    func waitForServer(count: Int = 1, timeout: Duration = hangTimeout, _ predicate: (ServerEvent) -> Bool) async -> ServerEvent? {
        let match = await waitFor(count: count, timeout: timeout) { event in
            if case .server(let server) = event { return predicate(server) }
            return false
        }
        if case .server(let server)? = match { return server }
        return nil
    }

    func waitConnected(_ number: Int = 1) async -> Bool {
        await waitFor { if case .connected(let n) = $0 { n == number } else { false } } != nil
    }

    /// The stand-in counts a connection on its own event loop, after the client may already have
    /// seen the upgrade: wait for it rather than read it once.
    func waitForStandInConnections(_ count: Int, timeout: Duration = hangTimeout) async -> Int {
        _ = await waitUntil(timeout: timeout) { standIn.connectionCount >= count }
        return standIn.connectionCount
    }
}

/// The harness's open connection, if any: what the tests send on.
final class CurrentConnection: Sendable {
    private let state = Mutex<(connection: RealtimeConnection?, shutDown: Bool, counters: ServerEventDecoder?)>((nil, false, nil))

    var isConnected: Bool { state.withLock { $0.connection != nil } }
    var isShutDown: Bool { state.withLock { $0.shutDown } }
    /// The open connection's counters (or the last one's).
    var counters: ServerEventDecoder? { state.withLock { $0.connection?.counters ?? $0.counters } }

    @discardableResult
    func send(_ event: ClientEvent, eventID: String? = nil) -> Bool { send(text: event.jsonText(eventID: eventID)) }

    @discardableResult
    func send(text: String) -> Bool { state.withLock { $0.connection }?.send(text: text) ?? false }

    func attach(_ connection: RealtimeConnection) -> Bool {
        state.withLock { state in
            guard !state.shutDown else { return false }
            state.connection = connection
            return true
        }
    }

    func detach() {
        state.withLock { state in
            state.counters = state.connection?.counters
            state.connection = nil
        }
    }

    func shutdown() {
        let open = state.withLock { state -> RealtimeConnection? in
            state.shutDown = true
            return state.connection
        }
        open?.close()
    }
}

extension String {
    func replacingPrefix(_ prefix: String, with replacement: String) -> String {
        hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : self
    }
}
