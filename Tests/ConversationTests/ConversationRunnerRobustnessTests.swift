import AudioCore
import Realtime
import ServiceLifecycle
import TestProcess
import Testing

@testable import Conversation

/// Transport failures become engine events; media never stays ducked; shutdown is clean.
@Suite(.timeLimit(.minutes(3))) struct ConversationRunnerRobustnessTests {
    let base = ConversationRunnerTests()

    @Test func failedConnectsAreRetriedWithBackoffWhileConnecting() async throws {
        let s = try base.setup()
        s.transport.scriptConnects(
            .fail(RealtimeDisconnect(kind: .transient, reason: .upgradeRejected(status: 503))),
            .fail(RealtimeDisconnect(kind: .transient, reason: .upgradeRejected(status: 503))))
        s.h.runner.tap()
        #expect(await waitUntil { s.transport.links.count == 1 })
        #expect(s.transport.attempts == 3)
        let link = try #require(s.transport.current)
        link.serverSends(ServerFrames.sessionCreated())
        await s.h.waitForState(.listening)
        #expect(s.h.logs.contains("HTTP 503; retrying"))
        try await s.h.stop()
    }

    /// The network is down (refused, no DNS, timeout): no retries in `connecting`; one plain line and the
    /// offline earcon at once, media released; the next tap connects again.
    @Test(arguments: [RealtimeDisconnect.Unreachable.connectionRefused, .hostNotFound, .timedOut])
    func anUnreachableAPIFailsAtOnceAndTheNextTapTriesAgain(_ why: RealtimeDisconnect.Unreachable) async throws {
        let s = try base.setup()
        s.transport.scriptConnects(.fail(RealtimeDisconnect(kind: .transient, reason: .unreachable(host: "api.openai.com", why))))
        s.h.runner.tap()
        await s.h.waitForState(.error)
        let line = "cannot reach the Realtime API at api.openai.com: \(why); check the network"
        #expect(s.h.logs.all.filter { $0.contains("cannot reach the Realtime API") }.count == 1, "\(s.h.logs.all)")
        #expect(s.h.logs.contains(line), "\(s.h.logs.all)")
        #expect(s.transport.attempts == 1)
        #expect(s.h.mixer.requestedGain(.media) == 1, "media released")
        await s.h.waitForState(.idle)
        _ = try await base.connect(s)
        #expect(s.transport.attempts == 2)
        try await s.h.stop()
    }

    @Test func aFatalConnectErrorStopsRetryingAndReleasesDucking() async throws {
        let s = try base.setup()
        s.transport.scriptConnects(
            .fail(RealtimeDisconnect.classify(upgradeStatus: 401, body: nil, retryAfterSeconds: nil, context: s.transport.context)))
        s.h.runner.tap()
        await s.h.waitForState(.error)
        #expect(s.h.logs.contains("rejected the API key"))
        #expect(s.h.mixer.requestedGain(.media) == 1)
        #expect(s.h.ledPatterns.last == .error)
        await s.h.waitForState(.idle)
        #expect(s.transport.attempts == 1)
        try await s.h.stop()
    }

    /// A rate limit is worth waiting for, but not sooner than the server asks (`Retry-After`).
    @Test func aRateLimitIsRetriedNoSoonerThanItsRetryAfter() async throws {
        let s = try base.setup()
        s.transport.scriptConnects(.fail(RealtimeDisconnect(kind: .transient, reason: .rateLimited(retryAfterSeconds: 1))))
        let tapped = ContinuousClock.now
        s.h.runner.tap()
        #expect(await waitUntil { s.transport.links.count == 1 })
        #expect(ContinuousClock.now - tapped >= .seconds(1), "the backoff alone would have retried after 250 ms")
        #expect(s.transport.attempts == 2)
        try #require(s.transport.current).serverSends(ServerFrames.sessionCreated())
        await s.h.waitForState(.listening)
        #expect(s.h.logs.contains("rate-limiting this API key (HTTP 429); it asks to wait 1 s; retrying"), "\(s.h.logs.all)")
        try await s.h.stop()
    }

    /// No credit left: retrying cannot help. One attempt, its own earcon, one line saying what to do.
    @Test func anAccountOutOfCreditIsNotRetried() async throws {
        let s = try base.setup()
        let refusal = RealtimeError(type: "insufficient_quota", code: "credit_balance_exhausted", message: "You exceeded your current quota.")
        s.transport.scriptConnects(
            .fail(RealtimeDisconnect.classify(upgradeStatus: 429, body: refusal, retryAfterSeconds: nil, context: s.transport.context)))
        s.h.runner.tap()
        await s.h.waitForState(.error)
        #expect(s.h.logs.all.filter { $0.contains("out of credit") }.count == 1, "\(s.h.logs.all)")
        #expect(s.h.mixer.requestedGain(.media) == 1, "media released")
        await s.h.waitForState(.idle)
        #expect(s.transport.attempts == 1)
        try await s.h.stop()
    }

    /// A tap, an open link, and the server's error event with `code` on it.
    func linkFailing(_ code: String, _ message: String) async throws -> (ConversationRunnerTests.Setup, FakeRealtimeLink) {
        let s = try base.setup()
        s.h.runner.tap()
        #expect(await waitUntil { s.transport.links.count == 1 })
        let link = try #require(s.transport.current)
        link.serverSends(ServerFrames.error(code: code, message: message))
        return (s, link)
    }

    @Test func aFatalServerErrorBeforeTheCloseIsNotRetried() async throws {
        let (s, link) = try await linkFailing("beta_api_shape_disabled", "The Realtime Beta API is no longer supported.")
        link.drop(
            RealtimeDisconnect.classify(
                closeCode: 4000, lastError: RealtimeError(code: "beta_api_shape_disabled", message: ""), closedByUs: false,
                context: s.transport.context))
        await s.h.waitForState(.error)
        #expect(s.h.logs.contains("beta-shaped"))
        await s.h.waitForTicks()
        #expect(s.transport.attempts == 1)
        try await s.h.stop()
    }

    /// The close that follows a fatal error event can be slow (a busy box, a slow close handshake); the error
    /// alone must end the conversation as fatal, not leave it to the connect timeout.
    @Test func aFatalServerErrorIsFatalWithoutWaitingForTheClose() async throws {
        let (s, link) = try await linkFailing("invalid_api_key", "Incorrect API key provided.")
        await s.h.waitForState(.error)
        #expect(s.h.logs.contains("rejected the API key"), "\(s.h.logs.all)")
        #expect(
            s.h.logs.all.filter { $0.contains("API key") && !$0.hasPrefix("debug") && !$0.hasPrefix("trace") }.count == 1,
            "one line, not the error event's as well: \(s.h.logs.all)")
        #expect(!s.h.logs.contains("connect_timeout"), "\(s.h.logs.all)")
        #expect(await waitUntil { link.closedByClient }, "the runner closes the rejected link")
        await s.h.waitForTicks()
        #expect(s.transport.attempts == 1)
        try await s.h.stop()
    }

    @Test func aDroppedSocketMidAnswerRecoversOnTheNextTap() async throws {
        let s = try base.setup()
        let h = s.h
        let link = try await base.connect(s)
        await base.userTurn(link, "U1", h)
        base.answer(link, milliseconds: 1_000)  // queued, not played yet
        await h.waitForState(.fillerSpeaking)
        for _ in 0..<10 { h.render(milliseconds: 10) }
        link.drop()
        await h.waitForState(.error)
        #expect(h.mixer.requestedGain(.media) == 1, "ducking released on error")
        let before = h.renderedLeft24k.count
        for _ in 0..<30 { h.render(milliseconds: 10) }
        let after = Array(h.renderedLeft24k[before...])
        #expect(
            SignalAnalysis.milliseconds(of: ConversationRunnerTests.answerHz, in: after, others: [300, ConversationRunnerTests.earconHz]) <= 10,
            "speech stopped")
        await h.waitForState(.idle)
        #expect((await h.runner.status()).realtimeConnected == false)

        let second = try await base.connect(s, linkIndex: 1)
        #expect(s.transport.links.count == 2)
        #expect((await h.runner.status()).realtimeConnected)
        second.serverSends(ServerFrames.speechStarted("U2"))
        await h.waitForState(.userSpeaking)
        try await h.stop()
    }

    @Test func malformedAndUnknownEventsAreCountedNotFatal() async throws {
        let s = try base.setup()
        let link = try await base.connect(s)
        link.serverSends("{not json")
        link.serverSends(#"{"type":"response.output_audio.delta","response_id":"R","item_id":"A"}"#)
        link.serverSends(#"{"type":"mcp_list_tools.in_progress","event_id":"e","item_id":"x"}"#)
        link.serverSends(#"{"type":"output_audio_buffer.started","event_id":"e","response_id":"R"}"#)
        link.serverSends(ServerFrames.error(code: "response_cancel_not_active", message: "no active response"))
        link.serverSends(ServerFrames.speechStarted("U1"))
        await s.h.waitForState(.userSpeaking)
        let status = await s.h.runner.status()
        #expect(status.malformedEvents == 2)
        #expect(status.unknownEvents == 2)
        #expect(status.realtimeConnected)
        try await s.h.stop()
    }

    @Test func gracefulShutdownCancelsToolsClosesTheSessionAndUnducks() async throws {
        let s = try base.setup()
        let h = s.h
        await s.jarvis.set(delay: .seconds(30))
        let link = try await base.connect(s)
        link.serverSends(ServerFrames.speechStarted("U1"))
        link.serverSends(ServerFrames.speechStopped("U1"))
        h.startPlayback(speed: 8)
        base.fillerAndCall(link, query: "a slow question")
        await h.waitForState(.waitingForJarvis)
        #expect(h.mixer.requestedGain(.media) < 0.2)
        let started = ContinuousClock.now
        try await h.stop()
        // Well under Jarvis's 30 s, which it would take if the stop waited for the tool (13 s once under the
        // whole suite's load on 2 cores).
        #expect(ContinuousClock.now - started < .seconds(25))
        #expect(link.closedByClient)
        #expect(await s.jarvis.cancelled == 1)
        #expect(h.mixer.requestedGain(.media) == 1)
        #expect(h.ledPatterns.last == .off)
        #expect(h.runner.state == .idle)
    }

    @Test func statusReportsStateConnectionAndTheJarvisSession() async throws {
        let s = try base.setup()
        var status = await s.h.runner.status()
        #expect(status.state == .idle && !status.realtimeConnected)
        #expect(status.jarvisSessionID == "20261122-053000-0123456789abcdef")
        _ = try await base.connect(s)
        status = await s.h.runner.status()
        #expect(status.state == .listening && status.realtimeConnected && status.media.ducked)
        #expect(status.jsonFields["state"] == .string("listening"))
        #expect(status.jsonFields["realtime_connected"] == .bool(true))
        s.h.runner.reset()
        #expect(await waitUntil { await s.jarvis.resets == 1 })
        status = await s.h.runner.status()
        #expect(status.jarvisSessionID == nil)
        #expect(status.jsonFields["jarvis_session_id"] == .null)
        try await s.h.stop()
    }
}

/// Engine timers run on the injected clock: nothing happens until the test moves time.
@Suite(.timeLimit(.minutes(3))) struct ConversationRunnerTimerTests {
    /// On the manual clock the quiet period can be the product's kind of length: nothing starves it.
    func harness(_ clock: ManualClock) throws -> (RunnerHarness, FakeRealtimeTransport) {
        let transport = FakeRealtimeTransport()
        let jarvis = ScriptedJarvis()
        var engine = RunnerHarness.fastEngine()
        engine.quietPeriod = .seconds(5)
        let h = try RunnerHarness(
            transport: transport, tools: ToolRegistry([AskJarvisTool(jarvis: jarvis)]), jarvis: jarvis,
            engine: engine, clock: RunnerClock(clock), tickInterval: .milliseconds(20))
        h.start()
        return (h, transport)
    }

    /// Advances in tick-sized steps so the loop sees time pass as it would.
    func advance(_ clock: ManualClock, by total: Duration, step: Duration = .milliseconds(20)) async {
        var moved = Duration.zero
        while moved < total {
            clock.advance(by: step)
            moved += step
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    @Test func quietPeriodEndsTheConversationOnlyWhenTheClockSaysSo() async throws {
        let clock = ManualClock()
        let (h, transport) = try harness(clock)
        h.runner.tap()
        #expect(await waitUntil { transport.links.count == 1 })
        let link = try #require(transport.current)
        link.serverSends(ServerFrames.sessionCreated())
        await h.waitForState(.listening)
        await advance(clock, by: .milliseconds(4_900))
        try await Task.sleep(for: .milliseconds(50))
        #expect(h.runner.state == .listening, "quiet period is 5 s")
        await advance(clock, by: .milliseconds(200))
        await h.waitForState(.idle)
        #expect(link.closedByClient)
        #expect(h.mixer.requestedGain(.media) == 1)
        try await h.stop()
    }

    /// Idle, the tick loop sleeps a whole `idleTickInterval` (1 s); a tap must not wait it out (its earcon
    /// reaches the mixer and the pre-roll the uplink on the next tick).
    @Test func aTapInIdleDoesNotWaitOutTheIdleTick() async throws {
        let clock = ManualClock()
        let (h, transport) = try harness(clock)
        await advance(clock, by: .milliseconds(100))  // a few ticks: the loop knows it is idle, the tick loop naps
        let before = h.runner.ticksHandled.load(ordering: .relaxed)
        h.runner.tap()
        #expect(await waitUntil { transport.links.count == 1 })
        await advance(clock, by: .milliseconds(20))  // one fast tick interval, far short of the idle one
        #expect(await waitUntil { h.runner.ticksHandled.load(ordering: .relaxed) > before }, "no tick after the tap")
        try await h.stop()
    }

    @Test func connectTimeoutShowsTheErrorThenReturnsToIdle() async throws {
        let clock = ManualClock()
        let (h, transport) = try harness(clock)
        transport.scriptConnects(.hang)
        h.runner.tap()
        await h.waitForState(.connecting)
        await advance(clock, by: RunnerHarness.fastEngine().connectTimeout, step: .milliseconds(150))
        await h.waitForState(.error)
        #expect(h.logs.contains("could not reach the Realtime API"))
        #expect(h.mixer.requestedGain(.media) == 1)
        await advance(clock, by: .milliseconds(300))
        await h.waitForState(.idle)
        try await h.stop()
    }
}

/// As the service runs it: in a `ServiceGroup`, ended by a graceful shutdown (what SIGTERM does).
@Suite(.timeLimit(.minutes(3))) struct ConversationRunnerServiceGroupTests {
    @Test func gracefulShutdownOfTheGroupEndsTheConversationCleanly() async throws {
        let transport = FakeRealtimeTransport()
        let jarvis = ScriptedJarvis()
        let h = try RunnerHarness(transport: transport, tools: ToolRegistry([AskJarvisTool(jarvis: jarvis)]), jarvis: jarvis)
        let group = ServiceGroup(services: [h.runner], logger: h.logs.logger(label: "group"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            h.runner.tap()
            #expect(await waitUntil { transport.links.count == 1 })
            let link = try #require(transport.current)
            link.serverSends(ServerFrames.sessionCreated())
            await h.waitForState(.listening)
            #expect(h.mixer.requestedGain(.media) < 0.2)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            #expect(link.closedByClient)
            #expect(h.mixer.requestedGain(.media) == 1)
            #expect(h.logs.contains("conversation runner stopped"))
        }
    }
}

extension ConversationRunnerRobustnessTests {
    @Test func anUndecodableAudioDeltaPlaysAsSilenceAndSpeechStillEnds() async throws {
        let s = try base.setup()
        let h = s.h
        let link = try await base.connect(s)
        await base.userTurn(link, "U1", h)
        link.serverSends(ServerFrames.responseCreated("R1"))
        link.serverSends(
            #"{"type":"response.output_audio.delta","event_id":"e","response_id":"R1","item_id":"A1","output_index":0,"content_index":0,"delta":"AAAA*AAAAAAAAAAA"}"#
        )
        link.serverSends(ServerFrames.audioDelta("R1", "A1", samples: tone(milliseconds: 100, frequency: 660)))
        link.serverSends(ServerFrames.audioDone("R1", "A1"))
        link.serverSends(ServerFrames.responseDone("R1"))
        await h.waitForState(.fillerSpeaking)
        h.startPlayback(speed: 4)
        await h.waitForState(.listening)
        #expect(h.logs.contains("played as silence"))
        try await h.stop()
    }
}
