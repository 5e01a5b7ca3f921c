import Glibc
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import TestProcess

/// An in-process stand-in for `term-llm serve` on 127.0.0.1 (ephemeral port), reproducing the wire
/// behaviour in shared/reference/jarvis-backend.md: base path, bearer auth, `session_id` in /
/// `x-session-id` out, server-side history, SSE chunks with Go's sorted-key JSON, `: ping`
/// comments, heartbeats, in-band errors, busy sessions, and disconnect = cancelled run.
public final class TermLLMStandIn: Sendable {
    public struct Options: Sendable {
        /// term-llm's `--base-path` (default `/ui`; "" for legacy root builds).
        public var basePath: String = "/ui"
        public var token: String = "s3cret"
        public var pingInterval: Duration = .seconds(10)
        public var model: String = "claude-sonnet-4-6"
        /// Every session is busy: 409 "session limit reached" before streaming.
        public var sessionLimitReached = false
        public init() {}
    }

    struct Session {
        var messages: [TermLLMStoredMessage] = []
        var busy = false
        var lastResponseID: String?
    }

    struct State {
        var sessions: [String: Session] = [:]
        var requests: [TermLLMRecordedRequest] = []
        var interruptedRuns = 0
        var completedRuns = 0
        var historyReplacements = 0
        var openConnections = 0
        var responseCounter = 0
        var options: TermLLMStandIn.Options
        var planner: @Sendable (TermLLMTurnContext) -> TermLLMTurnPlan
    }

    let state: Mutex<State>
    private let listener: StandInListener
    public var port: Int { listener.port }

    /// The base URL clients use, base path included, e.g. `http://127.0.0.1:40123/ui`.
    public var baseURL: String { "http://127.0.0.1:\(port)\(state.withLock { $0.options.basePath })" }

    /// `port` 0 picks an ephemeral port; a fixed one lets a restarted server come back at the same URL.
    public static func start(options: Options = Options(), port: Int = 0) async throws -> TermLLMStandIn {
        let served = Mutex<TermLLMStandIn?>(nil)
        let listener = try await StandInListener.bind(port: port) { channel in
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
            return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(wrappingChannelSynchronously: channel)
        } serve: { connection in
            guard let standIn = served.withLock({ $0 }) else {
                try? await connection.executeThenClose { _, _ in }  // not started yet: turned away
                return
            }
            await TermLLMConnection(standIn: standIn, connection: connection).serve()
        }
        let standIn = TermLLMStandIn(listener: listener, options: options)
        served.withLock { $0 = standIn }
        return standIn
    }

    private init(listener: StandInListener, options: Options) {
        self.listener = listener
        self.state = Mutex(State(options: options, planner: TermLLMStandIn.defaultPlanner))
    }

    /// Closes the listening socket and the connections (an open request sees its connection drop).
    public func stop() async {
        await listener.stop()
    }

    /// The default answer names the turn number, so tests can see server-side history continue.
    public static let defaultPlanner: @Sendable (TermLLMTurnContext) -> TermLLMTurnPlan = { context in
        .answer("Turn \(context.userTurn): ", "you said \(context.query).")
    }

    // MARK: knobs and observations for tests

    public func setPlanner(_ planner: @escaping @Sendable (TermLLMTurnContext) -> TermLLMTurnPlan) {
        state.withLock { $0.planner = planner }
    }

    public func updateOptions(_ change: (inout Options) -> Void) {
        state.withLock { change(&$0.options) }
    }

    public var recordedRequests: [TermLLMRecordedRequest] { state.withLock { $0.requests } }
    /// Runs ended because the client closed the connection.
    public var interruptedRuns: Int { state.withLock { $0.interruptedRuns } }
    public var completedRuns: Int { state.withLock { $0.completedRuns } }
    /// Requests that made the server discard a session's history (should stay 0 for a good client).
    public var historyReplacements: Int { state.withLock { $0.historyReplacements } }
    public var openConnections: Int { state.withLock { $0.openConnections } }
    public var sessionIDs: [String] { state.withLock { Array($0.sessions.keys) } }

    public func history(of sessionID: String) -> [TermLLMStoredMessage] {
        state.withLock { $0.sessions[sessionID]?.messages ?? [] }
    }

    /// Polls until `condition` holds or `timeout` passes; returns whether it held. The default is
    /// generous: it only runs out when something is really broken.
    public func waitUntil(timeout: Duration = hangTimeout, _ condition: (TermLLMStandIn) -> Bool) async -> Bool {
        await TestProcess.waitUntil(timeout: timeout) { condition(self) }
    }

    // MARK: helpers shared with the connection handler

    /// term-llm's id format: `YYYYMMDD-HHMMSS-<16 hex>`.
    static func mintSessionID() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let date = pad(parts.tm_year + 1900, 4) + pad(parts.tm_mon + 1, 2) + pad(parts.tm_mday, 2)
        let clock = pad(parts.tm_hour, 2) + pad(parts.tm_min, 2) + pad(parts.tm_sec, 2)
        var hex = ""
        for _ in 0..<16 { hex += String(UInt8.random(in: 0..<16), radix: 16) }
        return "\(date)-\(clock)-\(hex)"
    }
}
