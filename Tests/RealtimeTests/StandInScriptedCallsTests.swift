import Realtime
import TestSupport
import Testing

/// The stand-in's multi-call script: one call per response, in order, each after the previous output.
@Suite(.timeLimit(.minutes(3))) struct StandInScriptedCallsTests {
    func calls(_ harness: SessionHarness) -> [FunctionCall] {
        harness.serverEvents.compactMap { if case .functionCallArgumentsDone(let call) = $0 { call } else { nil } }
    }

    @Test func callsComeInOrderThenTheAnswer() async throws {
        var script = RealtimeStandInScript()
        script.functionCalls = [
            ScriptedFunctionCall(name: "play_audio", arguments: #"{"url":"https://x.org/a.mp3","title":"A"}"#, callID: "call_1"),
            ScriptedFunctionCall(name: "get_now_playing", arguments: "{}", callID: "call_2")
        ]
        script.answerAudio = SpeechFixture.tone(milliseconds: 200)
        try await SessionHarness.run(script: script) { harness in
            #expect(await harness.waitConnected())
            let session = harness.session
            session.send(RealtimeSessionSettings().sessionUpdate(tools: [SessionHarness.askJarvis], turnTaking: .text))
            session.send(.conversationItemCreate(.message(role: .user, text: "play something")))
            session.send(.responseCreate(nil))
            #expect(await harness.waitForServer { if case .responseDone = $0 { true } else { false } } != nil)
            #expect(calls(harness).map(\.name) == ["play_audio"])
            #expect(calls(harness).first?.arguments == #"{"url":"https://x.org/a.mp3","title":"A"}"#)

            session.send(.conversationItemCreate(.functionCallOutput(callID: "call_1", output: #"{"status":"playing"}"#)))
            session.send(.responseCreate(nil))
            #expect(await harness.waitForServer(count: 2) { if case .responseDone = $0 { true } else { false } } != nil)
            #expect(calls(harness).map(\.callID) == ["call_1", "call_2"])

            session.send(.conversationItemCreate(.functionCallOutput(callID: "call_2", output: #"{"state":"playing"}"#)))
            session.send(.responseCreate(nil))
            #expect(await harness.waitForServer(count: 3) { if case .responseDone = $0 { true } else { false } } != nil)
            #expect(harness.serverEvents.contains { if case .outputAudioDelta = $0 { true } else { false } }, "then the answer audio")
            #expect(calls(harness).count == 2)
            #expect(harness.standIn.functionCallOutputs.map(\.callID) == ["call_1", "call_2"])
            #expect(harness.standIn.functionCallOutputs.last?.output == #"{"state":"playing"}"#)

            // An output for a call the model never made is refused, as the real API does.
            session.send(.conversationItemCreate(.functionCallOutput(callID: "call_9", output: "x")))
            #expect(await harness.waitForServer { if case .error(let e) = $0 { e.code == "invalid_value" } else { false } } != nil)
            #expect(harness.standIn.rejections.isEmpty)
        }
    }
}
