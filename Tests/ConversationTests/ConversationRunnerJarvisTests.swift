import HTTP
import Jarvis
import Realtime
import TestProcess
import TestSupport
import Testing

@testable import Conversation

/// The runner with a real `JarvisClient` over HTTP against the term-llm stand-in (Realtime still faked):
/// Jarvis's session carries across turns, and every failure comes back as a spoken function output in time.
@Suite(.timeLimit(.minutes(3))) struct ConversationRunnerJarvisTests {
    static let token = "s3cret"
    let base = ConversationRunnerTests()

    struct Setup {
        let h: RunnerHarness
        let transport: FakeRealtimeTransport
        let server: TermLLMStandIn
        let client: JarvisClient
    }

    /// Timeouts far from the stand-in's answers unless a test is about them: the whole suite on 2 cores
    /// (with two more busy loops) held a 401 past a 0.4 s inactivity timeout.
    func setup(
        token: String = Self.token, options: TermLLMStandIn.Options = .init(),
        inactivityTimeout: Duration = .seconds(5), totalTimeout: Duration = .seconds(30),
        connectTimeout: Duration = .seconds(5)
    ) async throws -> Setup {
        let server = try await TermLLMStandIn.start(options: options)
        let settings = JarvisSettings(
            url: server.baseURL, inactivityTimeout: inactivityTimeout, totalTimeout: totalTimeout, connectTimeout: connectTimeout,
            breakerFailureThreshold: 10)
        let client = JarvisClient(settings: settings, token: token, http: try HTTPClient())
        let transport = FakeRealtimeTransport()
        let h = try RunnerHarness(transport: transport, tools: ToolRegistry([AskJarvisTool(jarvis: client)]), jarvis: client)
        h.start()
        h.startPlayback(speed: 8)
        return Setup(h: h, transport: transport, server: server, client: client)
    }

    /// One spoken turn that calls ask_jarvis; returns the function output the runner sent back.
    func turn(_ s: Setup, _ link: FakeRealtimeLink, number: Int, query: String) async throws -> String {
        let outputsBefore = link.sent(ofType: "conversation.item.create").count
        link.serverSends(ServerFrames.speechStarted("U\(number)"))
        link.serverSends(ServerFrames.speechStopped("U\(number)"))
        await s.h.waitForState(.processing)
        base.fillerAndCall(link, response: "R\(number)a", callID: "call_\(number)", query: query)
        #expect(await waitUntil { link.sent(ofType: "conversation.item.create").count > outputsBefore })
        let output = try #require(link.sent(ofType: "conversation.item.create").last)
        #expect(output["item"]?["call_id"]?.stringValue == "call_\(number)")
        #expect(await waitUntil { link.sentControlTypes.last == "response.create" })
        base.answer(link, response: "R\(number)b", milliseconds: 200, chunks: 2)
        await s.h.waitForState(.listening)
        return output["item"]?["output"]?.stringValue ?? ""
    }

    @Test func twoTurnsShareOneJarvisSession() async throws {
        let s = try await setup()
        let link = try await base.connect(ConversationRunnerTests.Setup(h: s.h, transport: s.transport, jarvis: ScriptedJarvis()))
        let first = try await turn(s, link, number: 1, query: "remember the number 42")
        let second = try await turn(s, link, number: 2, query: "what number did I say")
        #expect(first == "Turn 1: you said remember the number 42.")
        #expect(second == "Turn 2: you said what number did I say.")
        let requests = s.server.recordedRequests
        #expect(requests.count == 2)
        #expect(requests.first?.header("session_id") == nil)
        let sessionID = try #require(s.server.sessionIDs.first)
        #expect(s.server.sessionIDs.count == 1)
        #expect(requests.last?.header("session_id") == sessionID)
        #expect((await s.h.runner.status()).jarvisSessionID == sessionID)
        #expect(s.h.completedTurns.count == 2)
        try await s.h.stop()
        await s.server.stop()
    }

    @Test func aTapWhileJarvisThinksClosesTheRequestAndCancelsTheRun() async throws {
        let s = try await setup()
        s.server.setPlanner { _ in TermLLMTurnPlan(steps: [.sleep(.seconds(10)), .text("too late")]) }
        s.server.updateOptions { $0.pingInterval = .milliseconds(100) }
        let link = try await base.connect(ConversationRunnerTests.Setup(h: s.h, transport: s.transport, jarvis: ScriptedJarvis()))
        await base.userTurn(link, "U1", s.h)
        base.fillerAndCall(link, query: "plan my week")
        await s.h.waitForState(.waitingForJarvis)
        #expect(await s.server.waitUntil { $0.openConnections == 1 })
        s.h.runner.tap()
        await s.h.waitForState(.listening)
        #expect(await s.server.waitUntil { $0.interruptedRuns == 1 }, "closing the connection cancelled the run")
        #expect(
            link.sent(ofType: "conversation.item.create").last?["item"]?["output"]?.stringValue == ConversationConfiguration().toolCancelledMessage)
        try await s.h.stop()
        await s.server.stop()
    }

    func failingTurn(_ s: Setup, expecting fragment: String) async throws {
        let link = try await base.connect(ConversationRunnerTests.Setup(h: s.h, transport: s.transport, jarvis: ScriptedJarvis()))
        let started = ContinuousClock.now
        let output = try await turn(s, link, number: 1, query: "what's the weather")
        #expect(output.contains(fragment), "\(output)")
        // Only a guard against a hang: the output's wording already says how the turn failed (a Jarvis that
        // never answers sends "too late" after its silence; a timed-out one never gets there). The whole
        // turn, its speech included, took 21 s under the whole suite's load on 2 cores.
        #expect(ContinuousClock.now - started < .seconds(60), "inactivity timeout 0.4 s, total cap 3 s")
        #expect(s.h.runner.state == .listening)
        #expect(s.h.logs.contains("tool ask_jarvis failed"))
        try await s.h.stop()
        await s.server.stop()
    }

    @Test func slowJarvisTimesOutIntoASpokenExplanation() async throws {
        let s = try await setup(inactivityTimeout: .milliseconds(400), totalTimeout: .seconds(3))
        s.server.setPlanner { _ in TermLLMTurnPlan(steps: [.silence(.seconds(5)), .text("too late")]) }
        try await failingTurn(s, expecting: "timed out")
    }

    @Test func jarvisDownIsSpokenAsOffline() async throws {
        let s = try await setup()
        await s.server.stop()
        try await failingTurn(s, expecting: "offline")
    }

    @Test func aRejectedTokenIsSpokenAsAnAuthenticationFailure() async throws {
        let s = try await setup(token: "wrong-token")
        try await failingTurn(s, expecting: "Authentication to Jarvis failed")
    }

    @Test func aBusySessionIsSpokenAsBusy() async throws {
        var options = TermLLMStandIn.Options()
        options.sessionLimitReached = true
        let s = try await setup(options: options)
        try await failingTurn(s, expecting: "still busy")
    }
}
