import Realtime
import Testing

/// A hand-driven instant for the pure lifecycle machine (the manual clock).
struct TestInstant: InstantProtocol {
    var offset: Duration
    func advanced(by duration: Duration) -> TestInstant { TestInstant(offset: offset + duration) }
    func duration(to other: TestInstant) -> Duration { other.offset - offset }
    static func < (lhs: TestInstant, rhs: TestInstant) -> Bool { lhs.offset < rhs.offset }
    static let zero = TestInstant(offset: .zero)
}

@Suite struct ReconnectPolicyTests {
    @Test func delaysGrowExponentiallyWithEqualJitterAndCap() {
        let policy = ReconnectPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(8), multiplier: 2)
        #expect(policy.delay(attempt: 1, unitRandom: 0) == .milliseconds(500))
        #expect(policy.delay(attempt: 1, unitRandom: 1) == .seconds(1))
        #expect(policy.delay(attempt: 2, unitRandom: 0.5) == .milliseconds(1500))
        #expect(policy.delay(attempt: 3, unitRandom: 1) == .seconds(4))
        #expect(policy.delay(attempt: 4, unitRandom: 1) == .seconds(8))
        #expect(policy.delay(attempt: 30, unitRandom: 1) == .seconds(8))
        #expect(policy.delay(attempt: 30, unitRandom: 0) == .seconds(4))
    }
}

@Suite struct RealtimeLifecycleTests {
    typealias Machine = RealtimeLifecycle<TestInstant>
    let transient = RealtimeDisconnect(kind: .transient, reason: .connectionLost)

    func machine(maximumAttempts: Int? = nil) -> Machine {
        Machine(
            configuration: .init(
                policy: ReconnectPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(16), maximumAttempts: maximumAttempts),
                recycleAfter: .seconds(55 * 60), stableAfter: .seconds(10)))
    }

    @Test func backsOffOnRepeatedFailuresAndResetsAfterAStableConnection() {
        var lifecycle = machine()
        var now = TestInstant.zero
        #expect(lifecycle.start() == .connect)
        #expect(lifecycle.ended(transient, at: now, unitRandom: 1) == .wait(until: now.advanced(by: .seconds(1))))
        now = now.advanced(by: .milliseconds(500))
        #expect(lifecycle.waitElapsed(at: now) == .wait(until: TestInstant.zero.advanced(by: .seconds(1))))
        now = now.advanced(by: .milliseconds(500))
        #expect(lifecycle.waitElapsed(at: now) == .connect)
        #expect(lifecycle.ended(transient, at: now, unitRandom: 1) == .wait(until: now.advanced(by: .seconds(2))))
        now = now.advanced(by: .seconds(2))
        #expect(lifecycle.waitElapsed(at: now) == .connect)
        #expect(lifecycle.ended(transient, at: now, unitRandom: 1) == .wait(until: now.advanced(by: .seconds(4))))
        #expect(lifecycle.failures == 3)
        now = now.advanced(by: .seconds(4))
        #expect(lifecycle.waitElapsed(at: now) == .connect)
        // A connection that drops at once does not reset the backoff ...
        _ = lifecycle.connected(at: now)
        now = now.advanced(by: .seconds(1))
        #expect(lifecycle.ended(transient, at: now, unitRandom: 1) == .wait(until: now.advanced(by: .seconds(8))))
        now = now.advanced(by: .seconds(8))
        #expect(lifecycle.waitElapsed(at: now) == .connect)
        // ... one that lived past `stableAfter` does.
        _ = lifecycle.connected(at: now)
        now = now.advanced(by: .seconds(600))
        #expect(lifecycle.ended(transient, at: now, unitRandom: 1) == .wait(until: now.advanced(by: .seconds(1))))
        #expect(lifecycle.failures == 1)
        #expect(lifecycle.connectionCount == 2)
    }

    @Test func fatalStopsAndNothingRestartsIt() {
        var lifecycle = machine()
        _ = lifecycle.start()
        let fatal = RealtimeDisconnect(kind: .fatal, reason: .invalidAPIKey)
        #expect(lifecycle.ended(fatal, at: .zero, unitRandom: 0.3) == .stop(fatal))
        #expect(lifecycle.state == .stopped(fatal))
        #expect(lifecycle.waitElapsed(at: TestInstant.zero.advanced(by: .seconds(100))) == .none)
        #expect(lifecycle.start() == .none)
    }

    @Test func givesUpAfterMaximumAttempts() {
        var lifecycle = machine(maximumAttempts: 2)
        var now = TestInstant.zero
        _ = lifecycle.start()
        for _ in 0..<2 {
            guard case .wait(let until) = lifecycle.ended(transient, at: now, unitRandom: 0) else {
                Issue.record("expected a wait")
                return
            }
            now = until
            #expect(lifecycle.waitElapsed(at: now) == .connect)
        }
        let action = lifecycle.ended(transient, at: now, unitRandom: 0)
        #expect(action == .stop(RealtimeDisconnect(kind: .fatal, reason: .gaveUp(attempts: 2))))
    }

    @Test func recyclesOnlyWhenIdleAfterTheRecycleAge() {
        var lifecycle = machine()
        var now = TestInstant.zero
        _ = lifecycle.start()
        _ = lifecycle.connected(at: now)
        now = now.advanced(by: .seconds(54 * 60))
        #expect(lifecycle.idle(at: now) == .none)
        now = now.advanced(by: .seconds(60))
        #expect(lifecycle.idle(at: now) == .recycle)
        #expect(lifecycle.state == .recycling)
        // The recycle close is a client close; the machine reconnects at once, without backoff.
        let recycled = RealtimeDisconnect(kind: .closedByClient, reason: .recycled, closeCode: 1000)
        #expect(lifecycle.ended(recycled, at: now, unitRandom: 0.9) == .connect)
        #expect(lifecycle.failures == 0)
        _ = lifecycle.connected(at: now)
        #expect(lifecycle.idle(at: now.advanced(by: .seconds(60))) == .none)
    }

    @Test func clientCloseFinishesAndShutdownWhileWaitingFinishes() {
        var lifecycle = machine()
        _ = lifecycle.start()
        _ = lifecycle.connected(at: .zero)
        let closed = RealtimeDisconnect(kind: .closedByClient, reason: .clientClosed, closeCode: 1000)
        #expect(lifecycle.ended(closed, at: .zero, unitRandom: 0) == .finish)

        var waiting = machine()
        _ = waiting.start()
        _ = waiting.ended(transient, at: .zero, unitRandom: 0)
        #expect(waiting.shutdown() == .finish)
        #expect(waiting.waitElapsed(at: TestInstant.zero.advanced(by: .seconds(10))) == .none)
    }
}

@Suite struct RealtimeDisconnectTests {
    @Test func classifiesCloseCodesAndErrorCodes() {
        #expect(RealtimeDisconnect.classify(closeCode: nil, lastErrorCode: nil, closedByUs: false).reason == .connectionLost)
        let expired = RealtimeDisconnect.classify(
            closeCode: 1001, closeReason: "Your session hit the maximum duration of 60 minutes.", lastErrorCode: "session_expired", closedByUs: false)
        #expect(expired.kind == .transient)
        #expect(expired.reason == .sessionExpired)
        #expect(RealtimeDisconnect.classify(closeCode: 4000, lastErrorCode: "beta_api_shape_disabled", closedByUs: false).kind == .fatal)
        #expect(RealtimeDisconnect.classify(closeCode: 4000, lastErrorCode: nil, closedByUs: false).reason == .betaShapeRejected)
        #expect(RealtimeDisconnect.classify(closeCode: 1008, lastErrorCode: "invalid_api_key", closedByUs: false).reason == .invalidAPIKey)
        #expect(RealtimeDisconnect.classify(closeCode: 1000, lastErrorCode: "insufficient_quota", closedByUs: true).reason == .insufficientQuota)
        #expect(RealtimeDisconnect.classify(closeCode: 1000, lastErrorCode: "conversation_already_has_active_response", closedByUs: true).kind == .closedByClient)
        #expect(RealtimeDisconnect.classify(closeCode: 1011, lastErrorCode: nil, closedByUs: false).kind == .transient)
        #expect(RealtimeDisconnect.classify(upgradeStatus: 401).reason == .invalidAPIKey)
        #expect(RealtimeDisconnect.classify(upgradeStatus: 503).kind == .transient)
        #expect(RealtimeDisconnect(kind: .fatal, reason: .invalidAPIKey).description.contains("not retrying"))
    }

    @Test func endpointAppendsModelAndRefusesPlainWebSocketsOffLoopback() throws {
        let endpoint = try RealtimeEndpoint(url: "wss://api.openai.com/v1/realtime", model: "gpt-realtime")
        #expect(endpoint.useTLS)
        #expect(endpoint.host == "api.openai.com")
        #expect(endpoint.port == 443)
        #expect(endpoint.requestURI == "/v1/realtime?model=gpt-realtime")
        let local = try RealtimeEndpoint(url: "ws://127.0.0.1:8089/v1/realtime?x=1", model: "gpt-realtime-mini")
        #expect(local.port == 8089)
        #expect(local.requestURI == "/v1/realtime?x=1&model=gpt-realtime-mini")
        #expect(throws: RealtimeEndpoint.ParseError.self) { try RealtimeEndpoint(url: "ws://10.0.0.5/v1/realtime", model: "m") }
        #expect(throws: RealtimeEndpoint.ParseError.self) { try RealtimeEndpoint(url: "https://api.openai.com", model: "m") }
        #expect(throws: RealtimeEndpoint.ParseError.self) { try RealtimeEndpoint(url: "wss://api.openai.com/v1/realtime", model: "a b") }
    }

    @Test func apiKeyNeverPrints() {
        let key = RealtimeAPIKey("sk-secret-value")
        #expect("\(key)" == "<redacted>")
        #expect(!String(reflecting: key).contains("sk-secret"))
    }
}
