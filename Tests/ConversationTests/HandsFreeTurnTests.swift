import Realtime
import Testing

@testable import Conversation

@Suite struct HandsFreeTurnTests {
    @Test func tapStartsConversationWithPreRoll() {
        var h = EngineHarness()
        h.handle(.button(.tap(pressedAt: EngineTime(milliseconds: -120))), after: 0)
        #expect(h.state == .connecting)
        #expect(h.last.contains(.connectRealtime))
        #expect(h.last.contains(.duckMedia))
        #expect(h.last.contains(earcon: .listening))
        #expect(h.last.contains(.uplink(.capture(since: EngineTime(milliseconds: -120)))))
        #expect(h.engine.armedTimers[.connectTimeout] != nil)
        #expect(h.lastSent.isEmpty, "nothing is sent before session.created")

        h.handle(.realtimeConnected, after: 200)
        #expect(h.lastSent.isEmpty)
        h.server(.sessionCreated(SessionInfo(id: "sess_1")), after: 30)
        #expect(h.state == .listening)
        let update = h.lastSent.first
        #expect(update == RealtimeSessionSettings().sessionUpdate(tools: [AskJarvisTool.definition.functionTool], turnTaking: .handsFree))
        // session.update goes out before the buffered pre-roll is streamed.
        let updateIndex = h.last.firstIndex(of: .send(update!))!
        let streamIndex = h.last.firstIndex(of: .uplink(.stream))!
        #expect(updateIndex < streamIndex)
        #expect(h.engine.armedTimers[.quietPeriod] != nil && h.engine.armedTimers[.connectTimeout] == nil)
        #expect(h.engine.realtimeConnected)
    }

    @Test func fullTurnThroughAskJarvis() throws {
        var h = EngineHarness()
        h.startHandsFree()
        h.server(.speechStarted(audioStartMs: 300, itemID: "U1"), after: 300)
        #expect(h.state == .userSpeaking)
        h.server(.speechStopped(audioEndMs: 2100, itemID: "U1"), after: 1800)
        #expect(h.state == .processing)
        #expect(h.lastSent == [.responseCreate(nil)], "create_response is off: the appliance asks for the answer")
        h.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")), after: 100)
        #expect(h.lastSent.isEmpty)
        h.server(EngineHarness.delta("R1", "A1", samples: 24_000), after: 250)  // 350 ms after speech end
        #expect(h.state == .fillerSpeaking)
        #expect(h.last.contains(.enqueueVoice(itemID: "A1", audio: EngineHarness.audio(samples: 24_000))))
        h.server(
            .functionCallArgumentsDone(
                FunctionCall(
                    responseID: "R1", itemID: "F1", callID: "call_1", name: "ask_jarvis", arguments: #"{"query":"What's on my calendar tomorrow?"}"#)),
            after: 50)
        #expect(h.last.toolCalls.isEmpty, "tools run only after response.done")
        h.server(.outputAudioDone(responseID: "R1", itemID: "A1"))
        h.server(
            .responseDone(
                ResponseInfo(id: "R1", status: "completed", usage: EngineHarness.usage(inAudio: 100, inText: 400, outAudio: 20, outText: 10))),
            after: 20)
        #expect(h.last.toolCalls.map(\.0) == ["call_1"])
        #expect(h.last.toolCalls.first?.2 == #"{"query":"What's on my calendar tomorrow?"}"#)
        #expect(h.last.contains(earcon: .thinking))
        #expect(h.state == .fillerSpeaking, "the filler is still playing")
        #expect(h.engine.armedTimers[.toolTimeout] != nil)

        h.handle(.voicePlayed(samples: 12_000), after: 500)
        #expect(h.state == .fillerSpeaking)
        h.handle(.voicePlayed(samples: 24_000), after: 500)
        #expect(h.state == .waitingForJarvis)

        h.handle(.toolFinished(callID: "call_1", output: .success("You have a dentist at 10.")), after: 1_200)
        #expect(
            h.lastSent == [
                .conversationItemCreate(.functionCallOutput(callID: "call_1", output: "You have a dentist at 10.")),
                .responseCreate(nil)
            ])
        #expect(h.state == .aiSpeaking)
        #expect(h.engine.armedTimers[.toolTimeout] == nil)

        h.server(.responseCreated(ResponseInfo(id: "R2", status: "in_progress")), after: 100)
        h.server(EngineHarness.delta("R2", "A2", samples: 48_000), after: 300)
        #expect(h.state == .aiSpeaking)
        h.server(.outputAudioDone(responseID: "R2", itemID: "A2"))
        h.server(
            .responseDone(ResponseInfo(id: "R2", status: "completed", usage: EngineHarness.usage(inAudio: 120, inText: 450, outAudio: 40))), after: 10
        )
        #expect(h.state == .aiSpeaking, "still playing the answer")
        h.handle(.voicePlayed(samples: 72_000), after: 2_000)
        #expect(h.state == .listening)

        let metrics = try #require(h.last.compactMap { if case .turnCompleted(let m) = $0 { m } else { nil } }.first)
        #expect(metrics.firstAudioMs == 350)
        #expect(metrics.answerAudioMs == 350 + 50 + 20 + 1_000 + 1_200 + 400)
        #expect(metrics.toolDurationsMs == [2_200])
        #expect(metrics.usage.inputTokens == 1_070 && metrics.usage.outputTokens == 70)
        let expectedCost = RealtimeModels.pricing(for: RealtimeModels.defaultID).cost(
            of: EngineHarness.usage(inAudio: 220, inText: 850, outAudio: 60, outText: 10))
        #expect(abs(metrics.estimatedCostUSD - expectedCost) < 1e-12)
        #expect(h.last.contains { if case .log(.info, let line) = $0 { line.hasPrefix("turn: first_audio_ms=350") } else { false } })

        // Quiet period ends the conversation: close the session (billing), unduck, done earcon.
        #expect(h.fireNextTimer() == .quietPeriod)
        #expect(h.state == .idle)
        #expect(h.last.contains(.disconnectRealtime) && h.last.contains(.unduckMedia) && h.last.contains(earcon: .done))
        #expect(h.engine.armedTimers.isEmpty)
        #expect(!h.engine.realtimeConnected)
    }

    @Test func directAnswerWithoutToolReturnsToListening() {
        var h = EngineHarness()
        h.startHandsFree()
        h.server(.speechStarted(audioStartMs: 0, itemID: "U1"), after: 100)
        h.server(.speechStopped(audioEndMs: 800, itemID: "U1"), after: 700)
        h.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")))
        h.server(EngineHarness.delta("R1", "A1", samples: 4_800), after: 200)
        h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")), after: 10)
        #expect(h.last.toolCalls.isEmpty)
        h.handle(.voicePlayed(samples: 4_800), after: 200)
        #expect(h.state == .listening)
    }

    @Test func typedAskConnectsAndSendsText() {
        var h = EngineHarness()
        h.handle(.ask("  What's the weather?  "))
        #expect(h.state == .connecting)
        #expect(!h.last.contains { if case .uplink = $0 { true } else { false } }, "typed requests need no microphone")
        h.handle(.realtimeConnected, after: 100)
        h.server(.sessionCreated(SessionInfo()), after: 10)
        #expect(
            h.lastSent == [
                RealtimeSessionSettings().sessionUpdate(tools: [AskJarvisTool.definition.functionTool], turnTaking: .text),
                .conversationItemCreate(.message(role: .user, text: "What's the weather?")),
                .responseCreate(nil)
            ])
        #expect(h.state == .processing)
    }

    @Test func connectionFailures() {
        var h = EngineHarness()
        h.handle(.button(.tap(pressedAt: .zero)))
        h.handle(.realtimeFailed(RealtimeDisconnect(kind: .transient, reason: .connectFailed("refused")), fatal: false), after: 100)
        #expect(h.state == .connecting, "non-fatal failures while connecting are retried by the session")
        h.handle(.realtimeFailed(RealtimeDisconnect(kind: .fatal, reason: .invalidAPIKey(source: "k")), fatal: true), after: 100)
        #expect(h.state == .error)
        #expect(h.last.contains(earcon: .offline) && h.last.contains(.setLED(.error)) && h.last.contains(.unduckMedia))
        #expect(h.fireNextTimer() == .errorHold)
        #expect(h.state == .idle)

        h.handle(.button(.tap(pressedAt: h.now)))
        #expect(h.fireNextTimer() == .connectTimeout)
        #expect(h.state == .error && h.last.contains(earcon: .offline))

        h.fireNextTimer()
        h.startHandsFree()
        h.handle(.realtimeDisconnected(RealtimeDisconnect(kind: .transient, reason: .connectionLost)), after: 1_000)
        #expect(h.state == .error && h.last.contains(earcon: .error))
    }
}
