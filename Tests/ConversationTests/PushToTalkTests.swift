import Realtime
import Testing

@testable import Conversation

@Suite struct PushToTalkTests {
    @Test func holdConnectsWithoutVADAndCommitsOnRelease() {
        var h = EngineHarness()
        h.handle(.button(.holdStarted(pressedAt: .zero)), after: 400)
        #expect(h.state == .connecting)
        #expect(h.last.contains(.uplink(.capture(since: .zero))))
        h.handle(.realtimeConnected, after: 100)
        h.server(.sessionCreated(SessionInfo()), after: 20)
        #expect(h.state == .userSpeaking)
        let settings = RealtimeSessionSettings()
        #expect(h.lastSent == [settings.sessionUpdate(tools: [AskJarvisTool.definition.functionTool], turnTaking: .pushToTalk)])
        #expect(h.last.contains(.uplink(.stream)))

        h.handle(.button(.holdEnded), after: 1_000)
        #expect(h.last.filter { if case .uplink = $0 { true } else { false } } == [.uplink(.stop)])
        #expect(h.lastSent == [.inputAudioBufferCommit, .responseCreate(nil)])
        // The uplink stop (flushing the last audio) precedes the commit.
        #expect(h.last.firstIndex(of: .uplink(.stop))! < h.last.firstIndex(of: .send(.inputAudioBufferCommit))!)
        #expect(h.state == .processing)
    }

    @Test func releaseBeforeConnectedCommitsOnceReady() {
        var h = EngineHarness()
        h.handle(.button(.holdStarted(pressedAt: .zero)), after: 400)
        h.handle(.button(.holdEnded), after: 600)
        #expect(h.state == .connecting)
        h.handle(.realtimeConnected, after: 300)
        h.server(.sessionCreated(SessionInfo()), after: 20)
        let expected: [ConversationEffect] = [.uplink(.stream), .uplink(.stop), .send(.inputAudioBufferCommit), .send(.responseCreate(nil))]
        let relevant = h.last.filter { effect in
            if case .uplink = effect { return true }
            if case .send(let event) = effect, case .sessionUpdate = event { return false }
            if case .send = effect { return true }
            return false
        }
        #expect(relevant == expected)
        #expect(h.state == .processing)
    }

    @Test func shortPressIsDroppedSilently() {
        var h = EngineHarness()
        h.handle(.button(.holdStarted(pressedAt: .zero)), after: 400)
        h.handle(.realtimeConnected, after: 100)
        h.server(.sessionCreated(SessionInfo()), after: 20)
        h.handle(.button(.holdEnded), after: 500)
        h.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")))
        h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")), after: 100)
        #expect(h.state == .listening)

        // ctl press/release 60 ms apart: less than 100 ms of audio.
        h.advance(1_000)
        h.handle(.button(.holdStarted(pressedAt: h.now)))
        #expect(h.lastSent == [.inputAudioBufferClear], "clear on press; VAD already off")
        #expect(h.state == .userSpeaking)
        h.handle(.button(.holdEnded), after: 60)
        #expect(h.lastSent == [.inputAudioBufferClear])
        #expect(!h.lastSent.contains(.inputAudioBufferCommit) && !h.lastSent.contains(.responseCreate(nil)))
        #expect(!h.last.contains(earcon: .error))
        #expect(h.state == .listening)

        // Exactly 100 ms is enough.
        h.advance(1_000)
        h.handle(.button(.holdStarted(pressedAt: h.now)))
        h.handle(.button(.holdEnded), after: 100)
        #expect(h.lastSent == [.inputAudioBufferCommit, .responseCreate(nil)])
    }

    @Test func holdDuringHandsFreeSwitchesOffVADAndStopsTheAssistant() {
        var h = EngineHarness()
        h.startHandsFree()
        h.server(.speechStarted(audioStartMs: 0, itemID: "U1"), after: 100)
        h.server(.speechStopped(audioEndMs: 900, itemID: "U1"), after: 800)
        h.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")))
        h.server(EngineHarness.delta("R1", "A1", samples: 24_000), after: 100)
        h.handle(.voicePlayed(samples: 6_000), after: 250)
        h.handle(.button(.holdStarted(pressedAt: h.now)), after: 400)
        #expect(
            h.lastSent == [
                .responseCancel(responseID: nil),
                .conversationItemTruncate(itemID: "A1", contentIndex: 0, audioEndMs: 250),
                RealtimeSessionSettings().turnTakingUpdate(.pushToTalk),
                .inputAudioBufferClear
            ])
        #expect(h.last.contains(.flushVoice))
        #expect(h.engine.turnTaking == .pushToTalk)
        #expect(h.state == .userSpeaking)
        // Release while the cancelled response is still active: response.create waits for its response.done.
        h.handle(.button(.holdEnded), after: 800)
        #expect(h.lastSent == [.inputAudioBufferCommit])
        h.server(EngineHarness.delta("R1", "A1", samples: 2_400), after: 10)
        #expect(!h.last.contains { if case .enqueueVoice = $0 { true } else { false } }, "audio of a cancelled response is dropped")
        h.server(.responseDone(ResponseInfo(id: "R1", status: "cancelled", statusReason: "client_cancelled")), after: 20)
        #expect(h.lastSent == [.responseCreate(nil)])
    }

    @Test func longHoldResetsJarvisAndCancelsThePress() {
        var h = EngineHarness()
        h.handle(.button(.holdStarted(pressedAt: .zero)), after: 400)
        h.handle(.realtimeConnected, after: 100)
        h.server(.sessionCreated(SessionInfo()), after: 20)
        h.handle(.button(.longHold), after: 2_480)
        #expect(h.last.contains(.resetJarvisSession) && h.last.contains(earcon: .reset))
        #expect(h.state == .idle, "a hold that only reset Jarvis does not leave a conversation open")
        h.handle(.button(.holdEnded), after: 500)
        #expect(h.last.isEmpty)

        // In a conversation that already had a turn, long hold resets and keeps listening.
        var g = EngineHarness()
        g.startHandsFree()
        g.handle(.ask("hello"), after: 100)
        g.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")))
        g.server(.responseDone(ResponseInfo(id: "R1", status: "completed")), after: 100)
        #expect(g.state == .listening)
        g.handle(.button(.holdStarted(pressedAt: g.now)), after: 400)
        g.handle(.button(.longHold), after: 2_600)
        #expect(g.last.contains(.resetJarvisSession))
        #expect(g.lastSent == [.inputAudioBufferClear])
        #expect(g.state == .listening)
    }
}
