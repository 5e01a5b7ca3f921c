import HTTP
import Jarvis
import TestSupport
import Testing

/// Happy paths get timeouts that only fire when something is really broken: `swift test` runs
/// every suite in parallel and a 2-core machine can stall any one of them for seconds. Tests of a
/// timeout set a short one themselves and make the stand-in stall far longer.
let generousSettings = (inactivity: Duration.seconds(20), total: Duration.seconds(60), connect: Duration.seconds(10))

@Suite struct JarvisClientTests {
    static let token = "s3cret"

    struct Harness {
        let server: TermLLMStandIn
        let client: JarvisClient
        let clock: ManualJarvisClock
        let logs: LogCapture
    }

    private func harness(
        token: String = JarvisClientTests.token, serverOptions: TermLLMStandIn.Options = .init(),
        url: ((TermLLMStandIn) -> String)? = nil,
        configure: (inout JarvisSettings) -> Void = { _ in }
    ) async throws -> Harness {
        let server = try await TermLLMStandIn.start(options: serverOptions)
        var settings = JarvisSettings(
            url: url?(server) ?? server.baseURL, inactivityTimeout: generousSettings.inactivity,
            totalTimeout: generousSettings.total, connectTimeout: generousSettings.connect)
        configure(&settings)
        let clock = ManualJarvisClock()
        let logs = LogCapture()
        let client = JarvisClient(settings: settings, token: token, http: try HTTPClient(), clock: clock.clock, logger: logs.logger())
        return Harness(server: server, client: client, clock: clock, logs: logs)
    }

    private func expectNoSecrets(_ harness: Harness, _ answers: [JarvisAnswer]) {
        for line in harness.logs.all { #expect(!line.contains(Self.token), "token in log: \(line)") }
        for answer in answers {
            #expect(!answer.spokenText.contains(Self.token))
            #expect(!(answer.failure?.description.contains(Self.token) ?? false))
        }
    }

    @Test func firstTurnGetsASessionAndLaterTurnsSendIt() async throws {
        let h = try await harness()
        let first = await h.client.ask("what time is it")
        let second = await h.client.ask("and the weather")
        #expect(first == JarvisAnswer(spokenText: "Turn 1: you said what time is it.", failure: nil, rawText: "Turn 1: you said what time is it."))
        #expect(second.spokenText == "Turn 2: you said and the weather.")
        let requests = h.server.recordedRequests
        #expect(requests.count == 2)
        let sessionID = try #require(await h.client.currentSessionID())
        #expect(requests[0].header("session_id") == nil)
        #expect(requests[1].headers(named: "session_id") == [sessionID])
        #expect(sessionID.wholeMatch(of: /\d{8}-\d{6}-[0-9a-f]{16}/) != nil)
        for request in requests {
            #expect(request.method == "POST")
            #expect(request.path == "/ui/v1/chat/completions")
            #expect(request.header("authorization") == "Bearer s3cret")
            #expect(request.header("content-type") == "application/json")
        }
        #expect(requests[0].body == "{\"messages\":[{\"content\":\"what time is it\",\"role\":\"user\"}],\"stream\":true}")
        #expect(await h.server.waitUntil { $0.history(of: sessionID).count == 4 })
        #expect(
            h.server.history(of: sessionID).map(\.content) == [
                "what time is it", "Turn 1: you said what time is it.",
                "and the weather", "Turn 2: you said and the weather."
            ])
        #expect(h.server.historyReplacements == 0)
        #expect(h.server.sessionIDs == [sessionID])
        expectNoSecrets(h, [first, second])
        await h.server.stop()
    }

    @Test func sessionIsDroppedAfterIdleAndOnReset() async throws {
        let h = try await harness()
        _ = await h.client.ask("one")
        h.clock.advance(by: .seconds(29 * 60))
        #expect(await h.client.ask("two").spokenText.hasPrefix("Turn 2"))
        h.clock.advance(by: .seconds(30 * 60))
        #expect(await h.client.currentSessionID() == nil)
        #expect(await h.client.ask("three").spokenText.hasPrefix("Turn 1"))
        await h.client.resetSession()
        #expect(await h.client.ask("four").spokenText.hasPrefix("Turn 1"))
        let sent = h.server.recordedRequests.map { $0.header("session_id") }
        #expect(sent[0] == nil && sent[1] != nil && sent[2] == nil && sent[3] == nil)
        #expect(h.server.sessionIDs.count == 3)
        await h.server.stop()
    }

    @Test func toolCallTurnSpeaksTheTextAfterTheToolAndTreatsToolCallsFinishAsDone() async throws {
        var options = TermLLMStandIn.Options()
        options.pingInterval = .milliseconds(40)
        let h = try await harness(serverOptions: options)
        h.server.setPlanner { _ in
            TermLLMTurnPlan(steps: [
                .text("Let me check."), .toolCall(name: "web_search", arguments: "{\"query\":\"Sydney weather\"}"),
                .sleep(.milliseconds(150)), .heartbeat, .sleep(.milliseconds(150)),
                .text(" It is **22 degrees** and sunny.")
            ])
        }
        let answer = await h.client.ask("weather in sydney")
        #expect(answer.failure == nil)
        #expect(answer.rawText == " It is **22 degrees** and sunny.")
        #expect(answer.spokenText == "It is 22 degrees and sunny.")
        await h.server.stop()
    }

    @Test func wrongTokenIsSpokenAsAuthenticationFailure() async throws {
        let h = try await harness(token: "wrong-token")
        let answer = await h.client.ask("hello")
        #expect(answer.failure == .authenticationFailed(detail: "HTTP 401 from 127.0.0.1: invalid authentication credentials"))
        #expect(answer.spokenText.hasPrefix("Authentication to Jarvis failed."))
        for line in h.logs.all { #expect(!line.contains("wrong-token")) }
        await h.server.stop()
    }

    @Test func concurrentQuestionOnABusySessionIsSpokenAsBusy() async throws {
        let h = try await harness()
        _ = await h.client.ask("start")
        let gate = TermLLMGate()
        h.server.setPlanner { _ in TermLLMTurnPlan(steps: [.hold(gate, timeout: .seconds(30)), .text("slow answer")]) }
        async let slow = h.client.ask("long job")
        #expect(await h.server.waitUntil { $0.recordedRequests.count == 2 })
        let busy = await h.client.ask("interrupting")
        gate.open()
        #expect(busy.failure == .busy(detail: "in-stream conflict_error: session is busy processing another request"))
        #expect(busy.spokenText == "Jarvis is still busy with the previous request. Please try again in a moment.")
        #expect(await slow.spokenText == "slow answer.")
        await h.server.stop()
    }

    @Test func http409IsBusyToo() async throws {
        var options = TermLLMStandIn.Options()
        options.sessionLimitReached = true
        let h = try await harness(serverOptions: options)
        let answer = await h.client.ask("hello")
        #expect(answer.failure == .busy(detail: "HTTP 409 from 127.0.0.1: session limit reached: all sessions are busy"))
        await h.server.stop()
    }

    @Test func serverErrorsAreSpoken() async throws {
        let h = try await harness()
        h.server.setPlanner { _ in TermLLMTurnPlan(httpError: (500, "failed to persist or hydrate session", "server_error"), steps: []) }
        let http500 = await h.client.ask("a")
        #expect(http500.failure == .serverError(detail: "HTTP 500 from 127.0.0.1: failed to persist or hydrate session"))
        #expect(http500.spokenText.hasPrefix("Something went wrong on Jarvis's side"))
        h.server.setPlanner { _ in TermLLMTurnPlan(steps: [.text("partial "), .error(message: "provider overloaded", type: "invalid_request_error")])
        }
        let inBand = await h.client.ask("b")
        #expect(inBand.failure == .serverError(detail: "in-stream invalid_request_error: provider overloaded"))
        await h.server.stop()
    }

    @Test func slowFirstByteAndMidStreamStallTimeOutQuickly() async throws {
        // 300 ms inactivity against 60 s stalls: only the timeout can end these runs within the bound.
        let h = try await harness(configure: { $0.inactivityTimeout = .milliseconds(300) })
        h.server.setPlanner { _ in TermLLMTurnPlan(headerDelay: .seconds(60), steps: [.text("late")]) }
        var started = ContinuousClock.now
        let slow = await h.client.ask("a")
        #expect(ContinuousClock.now - started < .seconds(15))
        #expect(slow.spokenText.hasPrefix("I wasn't able to get an answer from Jarvis: the request timed out."))
        h.server.setPlanner { _ in TermLLMTurnPlan(steps: [.text("Hmm"), .silence(.seconds(60)), .text("late")]) }
        started = ContinuousClock.now
        let stalled = await h.client.ask("b")
        #expect(ContinuousClock.now - started < .seconds(15))
        guard case .timeout = stalled.failure else {
            Issue.record("expected timeout, got \(String(describing: stalled.failure))")
            return
        }
        #expect(await h.server.waitUntil { $0.interruptedRuns == 2 })  // both runs were cancelled by closing
        await h.server.stop()
    }

    @Test func pingsKeepALongToolRunAliveUntilTheTotalCap() async throws {
        var options = TermLLMStandIn.Options()
        options.pingInterval = .milliseconds(100)
        // Without the pings the 60 s tool run would trip the 1.5 s inactivity timeout long before the cap.
        let h = try await harness(
            serverOptions: options,
            configure: {
                $0.inactivityTimeout = .milliseconds(1500)
                $0.totalTimeout = .seconds(3)
            })
        h.server.setPlanner { _ in TermLLMTurnPlan(steps: [.toolCall(name: "slow", arguments: "{}"), .sleep(.seconds(60))]) }
        let started = ContinuousClock.now
        let answer = await h.client.ask("long")
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(2950) && elapsed < .seconds(15))
        guard case .timeout(let detail) = answer.failure else {
            Issue.record("expected timeout")
            return
        }
        #expect(detail.contains("no complete response within"))
        await h.server.stop()
    }

    @Test func downServerIsOfflineAndTheBreakerAnswersAtOnceUntilCoolDown() async throws {
        let h = try await harness(configure: {
            $0.breakerFailureThreshold = 2
            $0.breakerCooldown = .seconds(30)
        })
        h.server.setPlanner { _ in TermLLMTurnPlan(httpError: (502, "bad gateway", "server_error"), steps: []) }
        _ = await h.client.ask("a")
        _ = await h.client.ask("b")
        #expect(await h.client.isCircuitOpen())
        let fast = await h.client.ask("c")
        #expect(fast.failure == .serverError(detail: "HTTP 502 from 127.0.0.1: bad gateway"))
        #expect(h.server.recordedRequests.count == 2)  // answered without contacting Jarvis
        h.clock.advance(by: .seconds(31))
        h.server.setPlanner(TermLLMStandIn.defaultPlanner)
        let recovered = await h.client.ask("d")
        #expect(recovered.failure == nil)
        #expect(await !h.client.isCircuitOpen())
        await h.server.stop()

        let offline = await h.client.ask("e")
        #expect(offline.spokenText == "Jarvis appears to be offline right now. I can't reach the homelab.")
        guard case .offline(let detail) = offline.failure else {
            Issue.record("expected offline")
            return
        }
        #expect(detail == "nothing answers at 127.0.0.1 (connection refused or unreachable)", "\(detail)")
        expectNoSecrets(h, [fast, offline])
    }

    @Test func cancellingTheQuestionClosesTheConnectionAndCancelsTheRun() async throws {
        let h = try await harness()
        h.server.setPlanner { _ in TermLLMTurnPlan(steps: [.text("thinking"), .sleep(.seconds(60))]) }
        let client = h.client
        let task = Task { await client.ask("long job") }
        #expect(await h.server.waitUntil { $0.openConnections == 1 && $0.recordedRequests.count == 1 })
        try await Task.sleep(for: .milliseconds(30))
        task.cancel()
        let answer = await task.value
        #expect(answer.failure == .cancelled)
        #expect(await h.server.waitUntil { $0.interruptedRuns == 1 })
        #expect(await !client.isCircuitOpen())
        await h.server.stop()
    }

    @Test func missingBasePathIsReportedAsWrongURL() async throws {
        let h = try await harness(url: { "http://127.0.0.1:\($0.port)" })
        let answer = await h.client.ask("hello")
        #expect(answer.failure == .wrongURL(detail: "HTTP 307 from 127.0.0.1"))
        await h.server.stop()
    }

    @Test func responsesAPIChainsWithPreviousResponseID() async throws {
        let h = try await harness(configure: { $0.api = .responses })
        let first = await h.client.ask("one")
        let second = await h.client.ask("two")
        #expect(first.spokenText == "Turn 1: you said one.")
        #expect(second.spokenText == "Turn 2: you said two.")
        let requests = h.server.recordedRequests
        #expect(requests.map(\.path) == ["/ui/v1/responses", "/ui/v1/responses"])
        #expect(requests[0].body == "{\"input\":\"one\",\"stream\":true}")
        #expect(requests[1].body.contains("\"previous_response_id\":\"resp_msg_2\""))
        #expect(requests[1].header("session_id") != nil)
        #expect(h.server.historyReplacements == 0)
        await h.server.stop()
    }

    @Test func openClawBackendSendsItsSessionKeyAndAgent() async throws {
        let h = try await harness(configure: {
            $0.backend = .openClaw(sessionKey: "agent:main:voice:kitchen", agentTarget: "openclaw/main")
        })
        _ = await h.client.ask("one")
        _ = await h.client.ask("two")
        for request in h.server.recordedRequests {
            #expect(request.header("x-openclaw-session-key") == "agent:main:voice:kitchen")
            #expect(request.header("x-openclaw-message-channel") == "voice")
            #expect(request.header("session_id") == nil)
            #expect(request.body.contains("\"model\":\"openclaw/main\""))
        }
        await h.server.stop()
    }
}

@Suite struct JarvisHealthAndDropTests {
    private func client(_ url: String, token: String = "s3cret") throws -> JarvisClient {
        JarvisClient(
            settings: JarvisSettings(
                url: url, inactivityTimeout: generousSettings.inactivity, totalTimeout: generousSettings.total,
                connectTimeout: generousSettings.connect),
            token: token, http: try HTTPClient(), clock: ManualJarvisClock().clock, logger: LogCapture().logger())
    }

    @Test func healthProbeTellsTokenURLAndReachabilityApart() async throws {
        let server = try await TermLLMStandIn.start()
        let good = try await client(server.baseURL).probeHealth()
        #expect(good.status == .ok)
        #expect(good.summary == "Jarvis at 127.0.0.1 is up (agent jarvis, term-llm 0.0.0-standin)")
        let badToken = try await client(server.baseURL, token: "nope").probeHealth()
        #expect(badToken.status == .tokenRejected)
        #expect(!badToken.summary.contains("nope"))
        let noBase = try await client("http://127.0.0.1:\(server.port)").probeHealth()
        #expect(noBase.status == .wrongURL)
        #expect(noBase.summary.contains("307"))
        let url = server.baseURL
        await server.stop()
        #expect(try await client(url).probeHealth().status == .unreachable)
    }

    @Test func droppedConnectionsAreSpokenAsOffline() async throws {
        let server = try await TermLLMStandIn.start()
        let jarvis = try client(server.baseURL)
        server.setPlanner { _ in TermLLMTurnPlan(steps: [.text("half an ans"), .dropConnection]) }
        let midStream = await jarvis.ask("a")
        guard case .offline = midStream.failure else {
            Issue.record("expected offline, got \(String(describing: midStream.failure))")
            return
        }
        server.setPlanner { _ in TermLLMTurnPlan(dropBeforeHeaders: true, steps: []) }
        let beforeHeaders = await jarvis.ask("b")
        guard case .offline(let detail) = beforeHeaders.failure else {
            Issue.record("expected offline")
            return
        }
        #expect(detail == "the connection to 127.0.0.1 broke off", "\(detail)")  // CURLE_GOT_NOTHING
        #expect(beforeHeaders.spokenText == "Jarvis appears to be offline right now. I can't reach the homelab.")
        await server.stop()
    }
}

@Suite struct JarvisAskUserTests {
    @Test func askUserToolCallEndsTheRunAndSpeaksTheQuestion() async throws {
        let server = try await TermLLMStandIn.start()
        let arguments =
            "{\"questions\":[{\"header\":\"Room\",\"question\":\"Which room do you mean?\",\"options\":[{\"label\":\"Kitchen\",\"description\":\"\"},{\"label\":\"Living room\",\"description\":\"\"}],\"multi_select\":false}]}"
        // The run would go on for 60 s and the timeouts are longer than the bound: only ending the
        // run at the ask_user call answers in time.
        server.setPlanner { _ in TermLLMTurnPlan(steps: [.toolCall(name: "ask_user", arguments: arguments), .sleep(.seconds(60))]) }
        let client = JarvisClient(
            settings: JarvisSettings(
                url: server.baseURL, inactivityTimeout: generousSettings.inactivity,
                totalTimeout: generousSettings.total),
            token: "s3cret", http: try HTTPClient(), clock: ManualJarvisClock().clock, logger: LogCapture().logger())
        let started = ContinuousClock.now
        let answer = await client.ask("turn off the lights")
        #expect(ContinuousClock.now - started < .seconds(15))
        #expect(answer.failure == nil)
        #expect(answer.spokenText == "Jarvis asks: Which room do you mean? The options are: Kitchen, Living room.")
        #expect(await server.waitUntil { $0.interruptedRuns == 1 })
        await server.stop()
    }
}
