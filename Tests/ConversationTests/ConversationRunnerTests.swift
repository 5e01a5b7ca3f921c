import AudioCore
import Realtime
import TestProcess
import Testing

@testable import Conversation

/// The runner against the in-memory Realtime fake (real JSON both ways), a fake Jarvis, and a real
/// mixer that the test renders.
@Suite(.timeLimit(.minutes(3))) struct ConversationRunnerTests {
    static let fillerHz = 300.0
    static let answerHz = 660.0
    static let earconHz = 1_000.0

    struct Setup {
        let h: RunnerHarness
        let transport: FakeRealtimeTransport
        let jarvis: ScriptedJarvis
    }

    func setup(engine: ConversationConfiguration = RunnerHarness.fastEngine()) throws -> Setup {
        let transport = FakeRealtimeTransport()
        let jarvis = ScriptedJarvis()
        let h = try RunnerHarness(
            transport: transport, tools: ToolRegistry([AskJarvisTool(jarvis: jarvis)]), jarvis: jarvis, engine: engine)
        h.start()
        return Setup(h: h, transport: transport, jarvis: jarvis)
    }

    /// Tap, connect, `session.created`: the conversation is listening on link `index`.
    func connect(_ s: Setup, linkIndex: Int = 0, tap: Bool = true) async throws -> FakeRealtimeLink {
        if tap { s.h.runner.tap() }
        #expect(await waitUntil { s.transport.links.count > linkIndex })
        let link = try #require(s.transport.links.last)
        link.serverSends(ServerFrames.sessionCreated())
        await s.h.waitForState(.listening)
        return link
    }

    /// The user's turn `item` (speech started, then stopped): the conversation is processing.
    func userTurn(_ link: FakeRealtimeLink, _ item: String, _ h: RunnerHarness) async {
        link.serverSends(ServerFrames.speechStarted(item))
        link.serverSends(ServerFrames.speechStopped(item))
        await h.waitForState(.processing)
    }

    /// The model's first response: a filler phrase and an ask_jarvis call.
    func fillerAndCall(_ link: FakeRealtimeLink, response: String = "R1", callID: String = "call_1", query: String) {
        link.serverSends(ServerFrames.responseCreated(response))
        link.serverSends(ServerFrames.audioDelta(response, "A_\(response)", samples: tone(milliseconds: 300, frequency: Self.fillerHz)))
        link.serverSends(ServerFrames.audioDone(response, "A_\(response)"))
        link.serverSends(ServerFrames.functionCallDone(response, callID: callID, query: query))
        link.serverSends(ServerFrames.responseDone(response, functionCall: (callID, query)))
    }

    func answer(_ link: FakeRealtimeLink, response: String = "R2", milliseconds: Int = 500, chunks: Int = 5) {
        link.serverSends(ServerFrames.responseCreated(response))
        let samples = tone(milliseconds: milliseconds, frequency: Self.answerHz)
        let size = samples.count / chunks
        for index in 0..<chunks {
            let end = index == chunks - 1 ? samples.count : (index + 1) * size
            link.serverSends(ServerFrames.audioDelta(response, "A_\(response)", samples: Array(samples[(index * size)..<end])))
        }
        link.serverSends(ServerFrames.audioDone(response, "A_\(response)"))
        link.serverSends(ServerFrames.transcriptDone(response, "A_\(response)", "It is sunny."))
        link.serverSends(ServerFrames.responseDone(response))
    }

    @Test func handsFreeTurnStreamsPreRollAsksJarvisAndPlaysTheAnswer() async throws {
        let s = try setup()
        let h = s.h
        // Said while the button was down (the tap is reported at release): pre-roll.
        let pressedAt = EngineTime(milliseconds: h.runner.now().milliseconds - 400)
        await h.speak(tone(milliseconds: 400, frequency: 200))
        h.runner.gesture(.tap(pressedAt: pressedAt))
        #expect(await waitUntil { s.transport.links.count == 1 })
        let link = try #require(s.transport.current)
        #expect(h.mixer.requestedGain(.media) < 0.2, "media ducked while connecting")
        await h.speak(tone(milliseconds: 200, frequency: 200))  // said while connecting
        link.serverSends(ServerFrames.sessionCreated())
        await h.waitForState(.listening)

        let update = try #require(link.sent(ofType: "session.update").first)
        #expect(update["session"]?["type"]?.stringValue == "realtime")
        #expect(update["session"]?["audio"]?["input"]?["turn_detection"]?["type"]?.stringValue == "semantic_vad")
        #expect(link.sentTypes.first == "session.update", "session.update goes before any audio")
        // Pre-roll and what was said while connecting arrive as whole 40 ms frames.
        #expect(await waitUntil { link.appendedAudio.count >= 24 * 560 })
        #expect(link.appendFrameSizes.allSatisfy { $0 == 960 })

        await h.speak(tone(milliseconds: 600, frequency: 200))
        #expect(await waitUntil { link.appendedAudio.count >= 24 * 1_160 })
        link.serverSends(ServerFrames.speechStarted("U1"))
        await h.waitForState(.userSpeaking)
        link.serverSends(ServerFrames.speechStopped("U1"))
        link.serverSends(ServerFrames.committed("U1"))
        await h.waitForState(.processing)

        h.startPlayback(speed: 4)
        fillerAndCall(link, query: "What's the weather like?")
        #expect(await waitUntil { await s.jarvis.questions == ["What's the weather like?"] })
        #expect(await waitUntil { !link.sent(ofType: "conversation.item.create").isEmpty })
        let output = try #require(link.sent(ofType: "conversation.item.create").first)
        #expect(output["item"]?["type"]?.stringValue == "function_call_output")
        #expect(output["item"]?["call_id"]?.stringValue == "call_1")
        #expect(output["item"]?["output"]?.stringValue == "It is sunny.")
        let types = link.sentControlTypes
        #expect(Array(types.suffix(2)) == ["conversation.item.create", "response.create"])

        answer(link)
        await h.waitForState(.aiSpeaking)
        await h.waitForState(.listening)
        #expect(h.completedTurns.count == 1)
        #expect(h.completedTurns.first?.usage.inputTokens == 360)

        // The answer was played through the voice channel, all of it, and the filler before it.
        let heard = h.renderedLeft24k
        let answerMs = SignalAnalysis.milliseconds(of: Self.answerHz, in: heard, others: [Self.fillerHz, Self.earconHz])
        let fillerMs = SignalAnalysis.milliseconds(of: Self.fillerHz, in: heard, others: [Self.answerHz, Self.earconHz])
        #expect((460...520).contains(answerMs), "answer heard for \(answerMs) ms")
        #expect((260...320).contains(fillerMs), "filler heard for \(fillerMs) ms")
        #expect(h.ledPatterns.contains(.thinking) && h.ledPatterns.contains(.speaking))
        #expect(h.logs.contains("state: listening -> user_speaking (input_audio_buffer.speech_started)"))
        #expect(h.logs.contains("turn: first_audio_ms="))
        #expect(!h.logs.contains("It is sunny"), "transcripts are not logged unless enabled")

        h.runner.tap()  // ends the conversation
        await h.waitForState(.idle)
        #expect(await waitUntil { link.closedByClient })
        #expect(h.mixer.requestedGain(.media) == 1, "media restored")
        try await h.stop()
    }

    @Test func pushToTalkSendsEverythingCapturedBeforeTheCommit() async throws {
        let s = try setup()
        let h = s.h
        h.runner.press()
        #expect(await waitUntil { s.transport.links.count == 1 })
        let link = try #require(s.transport.current)
        await h.speak(tone(milliseconds: 300, frequency: 200))
        link.serverSends(ServerFrames.sessionCreated())
        await h.waitForState(.userSpeaking)
        let update = try #require(link.sent(ofType: "session.update").first)
        #expect(update["session"]?["audio"]?["input"]?["turn_detection"] == .null)
        await h.speak(tone(milliseconds: 230, frequency: 200))  // not a whole number of 40 ms frames
        try await Task.sleep(for: .milliseconds(120))  // held ≥ 100 ms
        h.runner.release()
        await h.waitForState(.processing)

        let types = link.sentControlTypes
        #expect(Array(types.suffix(2)) == ["input_audio_buffer.commit", "response.create"])
        // Every captured sample went out before the commit, the last frame shorter than 40 ms.
        let all = link.sentTypes
        let commitIndex = try #require(all.firstIndex(of: "input_audio_buffer.commit"))
        #expect(!all[commitIndex...].contains("input_audio_buffer.append"))
        #expect(link.appendedAudio.count == 24 * 530)
        #expect(link.appendFrameSizes.last == 24 * 530 % 960)
        try await h.stop()
    }

    @Test func typedAskConnectsWithoutTheMicrophone() async throws {
        let s = try setup()
        let h = s.h
        await h.speak(tone(milliseconds: 200, frequency: 200))
        h.runner.ask("  what's on my calendar?  ")
        #expect(await waitUntil { s.transport.links.count == 1 })
        let link = try #require(s.transport.current)
        link.serverSends(ServerFrames.sessionCreated())
        await h.waitForState(.processing)
        #expect(link.sentControlTypes == ["session.update", "conversation.item.create", "response.create"])
        let item = try #require(link.sent(ofType: "conversation.item.create").first)
        #expect(item["item"]?["content"]?[0]?["text"]?.stringValue == "what's on my calendar?")
        await h.waitForTicks()
        #expect(link.appendedAudio.isEmpty, "the loop polled the microphone and sent nothing")
        try await h.stop()
    }
}

extension ConversationRunnerTests {
    @Test func transcriptsAreLoggedOnlyWhenEnabled() async throws {
        let transport = FakeRealtimeTransport()
        let jarvis = ScriptedJarvis()
        let h = try RunnerHarness(
            transport: transport, tools: ToolRegistry([AskJarvisTool(jarvis: jarvis)]), jarvis: jarvis, logTranscripts: true)
        h.start()
        h.startPlayback(speed: 8)
        let link = try await connect(Setup(h: h, transport: transport, jarvis: jarvis))
        await userTurn(link, "U1", h)
        answer(link, milliseconds: 100, chunks: 1)
        await h.waitForState(.listening)
        #expect(h.logs.contains(#"said: "It is sunny.""#))
        try await h.stop()
    }
}
