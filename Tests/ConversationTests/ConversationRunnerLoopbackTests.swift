import AudioCore
import HTTP
import Jarvis
import Logging
import Realtime
import TestProcess
import TestSupport
import Testing

@testable import Conversation

/// End to end over loopback sockets: the runner with the WebSocket transport against the Realtime GA
/// stand-in (energy VAD, scripted ask_jarvis turn), a real `JarvisClient` against the term-llm stand-in,
/// espeak-ng speech into the uplink ring, and the mixer rendered by the test.
@Suite(.timeLimit(.minutes(3))) struct ConversationRunnerLoopbackTests {
    static let answerHz = 660.0
    static let jarvisToken = "s3cret"

    struct Setup {
        let h: RunnerHarness
        let realtime: RealtimeStandIn
        let jarvisServer: TermLLMStandIn
        let jarvis: JarvisClient

        func stop() async throws {
            try await h.stop()
            await realtime.shutdown()
            await jarvisServer.stop()
        }
    }

    func setup(
        configure: (inout RealtimeStandInScript) -> Void = { _ in }, clientKey: String? = nil,
        jarvisToken: String = Self.jarvisToken,
        engine: ConversationConfiguration = RunnerHarness.fastEngine()
    ) async throws -> Setup {
        var script = RealtimeStandInScript()
        script.answerAudio = tone(milliseconds: 800, frequency: Self.answerHz)
        configure(&script)
        let realtime = try await RealtimeStandIn.start(script: script)
        let jarvisServer = try await TermLLMStandIn.start()
        // Generous timeouts: no test here times Jarvis out (ConversationRunnerJarvisTests does), and a CI run on
        // 2 cores starved the stand-ins for 3.5 s.
        let jarvis = JarvisClient(
            settings: JarvisSettings(url: jarvisServer.baseURL, inactivityTimeout: .seconds(10), totalTimeout: .seconds(20)),
            token: jarvisToken, http: try HTTPClient())
        let connection = RealtimeConnectionConfiguration(
            url: realtime.url, model: RealtimeModels.defaultID, apiKey: RealtimeAPIKey(clientKey ?? script.apiKey),
            connectTimeout: .seconds(10), closeTimeout: .milliseconds(500))
        let transport = WebSocketRealtimeTransport(configuration: connection)
        let h = try RunnerHarness(transport: transport, tools: ToolRegistry([AskJarvisTool(jarvis: jarvis)]), jarvis: jarvis, engine: engine)
        h.start()
        return Setup(h: h, realtime: realtime, jarvisServer: jarvisServer, jarvis: jarvis)
    }

    static let question = "what is on my calendar today"

    /// The user's utterance followed by enough silence for the stand-in's VAD to end the turn.
    func utterance() throws -> [Int16] {
        try SpeechFixture.speech(Self.question) + [Int16](repeating: 0, count: 24 * 900)
    }

    /// A tap, and once listening, the user's utterance.
    func tapAndAsk(_ h: RunnerHarness) async throws {
        h.runner.tap()
        await h.waitForState(.listening)
        await h.speak(try utterance())
    }

    func answerHeardMs(_ h: RunnerHarness) -> Int {
        SignalAnalysis.milliseconds(of: Self.answerHz, in: h.renderedLeft24k, others: [ConversationRunnerTests.earconHz, 300])
    }

    @Test func handsFreeTurnEndToEnd() async throws {
        let s = try await setup()
        let h = s.h
        h.startPlayback(speed: 4)
        h.runner.tap()
        await h.waitForState(.listening)
        #expect(h.mixer.requestedGain(.media) < 0.2)
        await h.speak(try utterance())
        #expect(await s.realtime.waitForClientEvent("conversation.item.create"))
        await h.waitForState(.aiSpeaking)
        await h.waitForState(.listening)

        let asked = s.jarvisServer.recordedRequests
        #expect(asked.count == 1)
        #expect(asked.first?.body.contains(#""content":"what is on my calendar today""#) == true)
        let output = try #require(s.realtime.clientEvents(ofType: "conversation.item.create").first?.json)
        #expect(output["item"]?["type"]?.stringValue == "function_call_output")
        #expect(output["item"]?["output"]?.stringValue == "Turn 1: you said what is on my calendar today.")
        let heard = answerHeardMs(h)
        #expect((760...820).contains(heard), "answer heard for \(heard) ms")
        #expect(s.realtime.rejections.isEmpty, "every client event had a valid GA shape: \(s.realtime.rejections)")
        #expect(h.completedTurns.count == 1)

        h.runner.tap()
        await h.waitForState(.idle)
        #expect(h.mixer.requestedGain(.media) == 1)
        #expect(await waitUntil { !(await h.runner.status()).realtimeConnected })
        try await s.stop()
    }

    @Test func aJarvisAuthFailureIsSpokenAndTheConversationGoesOn() async throws {
        let s = try await setup(jarvisToken: "not-the-token")
        let h = s.h
        h.startPlayback(speed: 4)
        try await tapAndAsk(h)
        #expect(await s.realtime.waitForClientEvent("conversation.item.create"))
        let output = try #require(s.realtime.clientEvents(ofType: "conversation.item.create").first?.json)
        #expect(output["item"]?["output"]?.stringValue?.hasPrefix("Authentication to Jarvis failed") == true)
        await h.waitForState(.aiSpeaking)
        await h.waitForState(.listening)
        #expect(answerHeardMs(h) > 700, "the model's spoken explanation played")
        try await s.stop()
    }

    @Test func twoPushToTalkTurnsShareOneJarvisSession() async throws {
        let s = try await setup()
        let h = s.h
        h.startPlayback(speed: 4)
        for turn in 1...2 {
            let appendsBefore = s.realtime.clientEvents(ofType: "input_audio_buffer.append").count
            h.runner.press()
            await h.waitForState(.userSpeaking)
            await h.speak(try SpeechFixture.speech(Self.question))
            #expect(await waitUntil { s.realtime.clientEvents(ofType: "input_audio_buffer.append").count >= appendsBefore + 20 })
            try await Task.sleep(for: .milliseconds(150))  // a hold, not a tap
            h.runner.release()
            #expect(await s.realtime.waitForClientEvent("input_audio_buffer.commit", count: turn))
            await h.waitForState(.aiSpeaking)
            await h.waitForState(.listening)
        }
        let update = try #require(s.realtime.clientEvents(ofType: "session.update").first?.json)
        #expect(update["session"]?["audio"]?["input"]?["turn_detection"] == .null)
        let requests = s.jarvisServer.recordedRequests
        #expect(requests.count == 2)
        let sessionID = try #require(s.jarvisServer.sessionIDs.first)
        #expect(s.jarvisServer.sessionIDs.count == 1)
        #expect(requests.last?.header("session_id") == sessionID)
        #expect(s.jarvisServer.history(of: sessionID).filter { $0.role == "user" }.count == 2)
        #expect(s.realtime.connectionCount == 1)
        #expect(s.realtime.rejections.isEmpty, "\(s.realtime.rejections)")
        try await s.stop()
    }

    @Test func bargeInTruncatesAtTheRenderedAudio() async throws {
        let s = try await setup { script in
            script.answerAudio = tone(milliseconds: 3_000, frequency: Self.answerHz)
            script.deltaPause = .milliseconds(10)
        }
        let h = s.h
        try await tapAndAsk(h)
        await h.waitForState(.aiSpeaking)
        #expect(await waitUntil { h.mixer.framesQueued(.voice) >= 48_000 }, "a second of the answer is queued")
        for _ in 0..<40 { h.render(milliseconds: 10) }  // 400 ms heard
        await h.speak(try utterance())  // the user talks over the answer
        #expect(await s.realtime.waitForClientEvent("conversation.item.truncate"))
        let truncate = try #require(s.realtime.clientEvents(ofType: "conversation.item.truncate").first?.json)
        #expect(truncate["audio_end_ms"]?.numberValue == 400)
        #expect(s.realtime.rejections.isEmpty, "\(s.realtime.rejections)")
        #expect(h.logs.contains("barge-in"))
        try await s.stop()
    }

    @Test func aDroppedSocketMidAnswerEndsInErrorThenTheNextTapReconnects() async throws {
        let s = try await setup(configure: { script in
            script.dropConnectionAfterDeltas = 3
            script.deltaPause = .milliseconds(10)
        })
        let h = s.h
        try await tapAndAsk(h)
        await h.waitForState(.error)
        #expect(h.mixer.requestedGain(.media) == 1, "ducking released on the error")
        await h.waitForState(.idle)
        h.runner.tap()
        await h.waitForState(.listening)
        #expect(s.realtime.connectionCount == 2)
        #expect(h.logs.all.filter { $0.contains("connection to the Realtime API was lost") }.count == 1, "one line for the drop: \(h.logs.all)")
        try await s.stop()
    }

    @Test func malformedUnknownAndBenignEventsDoNotDisturbTheConversation() async throws {
        let s = try await setup()
        let h = s.h
        h.runner.tap()
        await h.waitForState(.listening)
        await s.realtime.perform(.malformedJSON)
        await s.realtime.perform(.unknownEvent(type: "mcp_list_tools.in_progress"))
        await s.realtime.perform(.malformedEvent(type: "response.output_audio.delta"))
        await s.realtime.perform(.error(code: "response_cancel_not_active", message: "Cancellation failed: no active response found"))
        #expect(await waitUntil { (await h.runner.status()).malformedEvents == 2 })
        let status = await h.runner.status()
        #expect(status.unknownEvents == 1)
        #expect(status.state == .listening && status.realtimeConnected)
        try await s.stop()
    }

    @Test(arguments: [RealtimeStandInScript.AuthFailure.http401, .errorEventThenClose])
    func aRejectedAPIKeyIsFatalAndNotRetried(_ failure: RealtimeStandInScript.AuthFailure) async throws {
        // A connect timeout far beyond anything the rejection needs: on a starved test machine the 3 s default
        // can expire before a slow 401 is seen, and the test must show the rejection, not the timeout.
        var engine = RunnerHarness.fastEngine()
        engine.connectTimeout = .seconds(30)
        let s = try await setup(configure: { $0.authFailure = failure }, clientKey: "sk-wrong", engine: engine)
        let h = s.h
        h.runner.tap()
        await h.waitForState(.error)
        #expect(h.logs.contains("rejected the API key"), "\(h.logs.all)")
        #expect(!h.logs.contains("connect_timeout"), "\(h.logs.all)")
        #expect(h.mixer.requestedGain(.media) == 1)
        await h.waitForState(.idle)
        #expect(s.realtime.upgradeAttempts == 1, "\(h.logs.all)")
        try await s.stop()
    }
}
