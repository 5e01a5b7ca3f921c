import Logging
import Realtime
import Synchronization
import TestSupport

/// Runs a `RealtimeSession` against a fresh Realtime stand-in and records every session event.
final class SessionHarness: Sendable {
    let standIn: RealtimeStandIn
    let session: RealtimeSession
    private let recorded = Mutex<[RealtimeSessionEvent]>([])

    static let askJarvis = FunctionTool(
        name: "ask_jarvis", description: "Ask Jarvis, the owner's agent.",
        parameters: ["type": "object", "properties": ["query": ["type": "string"]], "required": ["query"]])

    private init(standIn: RealtimeStandIn, session: RealtimeSession) {
        self.standIn = standIn
        self.session = session
    }

    static func run(
        script: RealtimeStandInScript = .init(), apiKey: String? = nil, maximumAttempts: Int? = nil,
        urlTransform: (String) -> String = { $0 }, recycleAfter: Duration = .seconds(55 * 60),
        pingInterval: Duration = .seconds(1), pongTimeout: Duration? = nil, _ body: (SessionHarness) async throws -> Void
    ) async throws {
        let standIn = try await RealtimeStandIn.start(script: script)
        let configuration = RealtimeConnectionConfiguration(
            url: urlTransform(standIn.url), model: "gpt-realtime", apiKey: RealtimeAPIKey(apiKey ?? script.apiKey),
            // The default pong timeout is long: the stand-in answers pings from this (busy) test process, and a
            // 2 s stall under the full suite's load used to drop the connection mid-response.
            connectTimeout: .seconds(2), pingInterval: pingInterval, pongTimeout: pongTimeout ?? .seconds(10),
            closeTimeout: .milliseconds(500))
        let session = RealtimeSession(
            configuration: configuration,
            lifecycle: .init(policy: ReconnectPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200), maximumAttempts: maximumAttempts),
                recycleAfter: recycleAfter),
            logger: Logger(label: "realtime-test", factory: { _ in SwiftLogNoOpLogHandler() }),
            random: { 0.5 })
        let harness = SessionHarness(standIn: standIn, session: session)
        var failure: (any Error)?
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await session.run() }
            group.addTask {
                for await event in session.events { harness.recorded.withLock { $0.append(event) } }
            }
            do { try await body(harness) } catch { failure = error }
            session.shutdown()
            await group.waitForAll()
        }
        await standIn.shutdown()
        if let failure { throw failure }
    }

    var events: [RealtimeSessionEvent] { recorded.withLock { $0 } }

    var serverEvents: [ServerEvent] {
        events.compactMap { if case .server(let event) = $0 { event } else { nil } }
    }

    /// Waits until `count` recorded events satisfy `predicate`; returns the last match.
    @discardableResult
    func waitFor(count: Int = 1, timeout: Duration = .seconds(5), _ predicate: (RealtimeSessionEvent) -> Bool) async -> RealtimeSessionEvent? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        repeat {
            let matches = events.filter(predicate)
            if matches.count >= count { return matches.last }
            try? await Task.sleep(for: .milliseconds(5))
        } while ContinuousClock.now < deadline
        let matches = events.filter(predicate)
        return matches.count >= count ? matches.last : nil
    }

    @discardableResult
    func waitForServer(count: Int = 1, timeout: Duration = .seconds(5), _ predicate: (ServerEvent) -> Bool) async -> ServerEvent? {
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
    func waitForStandInConnections(_ count: Int, timeout: Duration = .seconds(5)) async -> Int {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while standIn.connectionCount < count, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return standIn.connectionCount
    }
}

extension String {
    func replacingPrefix(_ prefix: String, with replacement: String) -> String {
        hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : self
    }
}
