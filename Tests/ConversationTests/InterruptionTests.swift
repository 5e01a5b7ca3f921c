import Realtime
import Testing

@testable import Conversation

@Suite struct InterruptionTests {
    /// Hands-free conversation with the assistant mid-answer: `samples` received for item A1 of response R1.
    func speaking(received samples: Int, played: Int, audioDone: Bool = false, responseDone: Bool = false) -> EngineHarness {
        var h = EngineHarness()
        h.startHandsFree()
        h.server(.speechStarted(audioStartMs: 0, itemID: "U1"), after: 100)
        h.server(.speechStopped(audioEndMs: 900, itemID: "U1"), after: 800)
        h.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")))
        h.server(EngineHarness.delta("R1", "A1", samples: samples), after: 100)
        if audioDone { h.server(.outputAudioDone(responseID: "R1", itemID: "A1")) }
        if responseDone { h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")), after: 5) }
        h.handle(.voicePlayed(samples: played), after: 100)
        return h
    }

    /// `speaking` with item A1 done and fully played, then R1 ends with an ask_jarvis call `c1` running.
    func waitingForJarvis(received samples: Int) -> EngineHarness {
        var h = speaking(received: samples, played: samples, audioDone: true)
        h.server(
            .functionCallArgumentsDone(FunctionCall(responseID: "R1", itemID: "F1", callID: "c1", name: "ask_jarvis", arguments: #"{"query":"q"}"#)))
        h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")), after: 5)
        return h
    }

    @Test func bargeInTruncatesAtPlayedAudio() {
        var h = speaking(received: 48_000, played: 36_000)
        h.server(.speechStarted(audioStartMs: 5_000, itemID: "U2"), after: 10)
        #expect(h.last.contains(.flushVoice))
        #expect(
            h.lastSent == [.responseCancel(responseID: nil), .conversationItemTruncate(itemID: "A1", contentIndex: 0, audioEndMs: 1_500)],
            "interrupt_response is off: the appliance cancels the response itself")
        #expect(h.state == .userSpeaking)
        // Late audio of the interrupted response is not played.
        h.server(EngineHarness.delta("R1", "A1", samples: 2_400), after: 5)
        #expect(h.last.isEmpty)
        h.server(.responseDone(ResponseInfo(id: "R1", status: "cancelled", statusReason: "turn_detected")), after: 5)
        #expect(h.state == .userSpeaking)
    }

    @Test func truncateIsClampedToReceivedAudio() {
        // The playback side reports more than was received for the item (device delay estimate off).
        var h = speaking(received: 12_000, played: 20_000)
        h.server(.speechStarted(audioStartMs: 5_000, itemID: "U2"), after: 10)
        #expect(h.lastSent.last == .conversationItemTruncate(itemID: "A1", contentIndex: 0, audioEndMs: 500))
    }

    @Test func truncateCountsOnlyTheCurrentItem() {
        // A filler item (0.5 s, fully played) then the answer item in a later response on the same channel.
        var h = waitingForJarvis(received: 12_000)
        #expect(h.state == .waitingForJarvis)
        h.handle(.toolFinished(callID: "c1", output: .success("answer")), after: 500)
        h.server(.responseCreated(ResponseInfo(id: "R2", status: "in_progress")), after: 50)
        h.server(EngineHarness.delta("R2", "A2", samples: 24_000), after: 100)
        h.handle(.voicePlayed(samples: 12_000 + 7_200), after: 300)
        h.server(.speechStarted(audioStartMs: 9_000, itemID: "U2"), after: 10)
        #expect(h.lastSent.last == .conversationItemTruncate(itemID: "A2", contentIndex: 0, audioEndMs: 300))
    }

    @Test func fullyPlayedItemIsNotTruncated() {
        var h = speaking(received: 12_000, played: 0, audioDone: true, responseDone: true)
        h.handle(.voicePlayed(samples: 12_000), after: 500)
        #expect(h.state == .listening)
        h.server(.speechStarted(audioStartMs: 9_000, itemID: "U2"), after: 10)
        #expect(h.lastSent.isEmpty)
        #expect(!h.last.contains(.flushVoice))
    }

    @Test func tapWhileSpeakingCancelsFlushesAndTruncatesInOrder() {
        var h = speaking(received: 48_000, played: 24_000)
        h.handle(.button(.tap(pressedAt: h.now)), after: 200)
        let relevant = h.last.filter { effect in
            switch effect {
            case .send, .flushVoice: true
            default: false
            }
        }
        #expect(
            relevant == [
                .send(.responseCancel(responseID: nil)),
                .flushVoice,
                .send(.conversationItemTruncate(itemID: "A1", contentIndex: 0, audioEndMs: 1_000))
            ])
        #expect(h.state == .processing, "waits for the cancelled response's response.done")
        h.server(.responseDone(ResponseInfo(id: "R1", status: "cancelled", statusReason: "client_cancelled")), after: 50)
        #expect(h.state == .listening)
        // Tap in listening ends the conversation.
        h.handle(.button(.tap(pressedAt: h.now)), after: 1_000)
        #expect(h.state == .idle && h.last.contains(.disconnectRealtime))
    }

    @Test func tapPriorityIsSpeechThenJarvisThenMedia() {
        var h = speaking(received: 24_000, played: 6_000, audioDone: true)
        h.handle(.mediaChanged(playing: true))
        h.server(
            .functionCallArgumentsDone(FunctionCall(responseID: "R1", itemID: "F1", callID: "c1", name: "ask_jarvis", arguments: #"{"query":"q"}"#)))
        h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")), after: 5)
        #expect(h.last.toolCalls.map(\.0) == ["c1"])
        #expect(h.state == .fillerSpeaking)

        // 1st tap: the assistant's speech only (response already done: no cancel), Jarvis keeps running.
        h.handle(.button(.tap(pressedAt: h.now)), after: 100)
        #expect(h.last.contains(.flushVoice))
        #expect(h.lastSent == [.conversationItemTruncate(itemID: "A1", contentIndex: 0, audioEndMs: 250)])
        #expect(!h.last.contains(.cancelTool(callID: "c1")) && !h.last.contains(.stopMedia))
        #expect(h.state == .waitingForJarvis)

        // 2nd tap: the pending Jarvis call; the model still gets an output for it.
        h.handle(.button(.tap(pressedAt: h.now)), after: 100)
        #expect(h.last.contains(.cancelTool(callID: "c1")))
        #expect(h.lastSent == [.conversationItemCreate(.functionCallOutput(callID: "c1", output: ConversationConfiguration().toolCancelledMessage))])
        #expect(!h.last.contains(.stopMedia))
        #expect(h.state == .listening)
        h.handle(.toolFinished(callID: "c1", output: .success("late")), after: 10)
        #expect(h.lastSent.isEmpty, "a cancelled call's late result is ignored")

        // 3rd: media, while the engine is busy but nothing speaks or runs.
        h.handle(.ask("next"), after: 100)
        #expect(h.state == .processing)
        h.server(.responseCreated(ResponseInfo(id: "R2", status: "in_progress")))
        h.server(.responseDone(ResponseInfo(id: "R2", status: "cancelled")), after: 10)
        h.handle(.ask("again"), after: 100)
        h.server(.responseCreated(ResponseInfo(id: "R3", status: "in_progress")))
        // R3 is active: the tap stops it before media.
        h.handle(.button(.tap(pressedAt: h.now)), after: 10)
        #expect(h.lastSent == [.responseCancel(responseID: nil)])
        #expect(!h.last.contains(.stopMedia))
    }

    @Test func tapStopsMediaWhenNothingElseRuns() {
        var h = EngineHarness()
        h.startHandsFree()
        h.handle(.mediaChanged(playing: true))
        h.server(.speechStarted(audioStartMs: 0, itemID: "U1"), after: 100)
        h.handle(.button(.tap(pressedAt: h.now)), after: 100)
        #expect(h.last.contains(.stopMedia))
        #expect(h.state == .userSpeaking)
        h.handle(.mediaChanged(playing: false))
        h.handle(.button(.tap(pressedAt: h.now)), after: 100)
        #expect(h.lastSent == [.inputAudioBufferClear])
        #expect(h.state == .listening)
    }

    @Test func toolTimeoutAnswersTheModel() {
        var h = waitingForJarvis(received: 2_400)
        #expect(h.state == .waitingForJarvis)
        h.fire(.toolTimeout)
        #expect(h.last.contains(.cancelTool(callID: "c1")))
        #expect(
            h.lastSent == [
                .conversationItemCreate(.functionCallOutput(callID: "c1", output: ConversationConfiguration().toolTimeoutMessage)),
                .responseCreate(nil)
            ])
        #expect(h.state == .aiSpeaking)
    }

    @Test func cancelledResponseDoesNotRunItsToolCalls() {
        var h = speaking(received: 2_400, played: 1_000)
        h.server(.functionCallArgumentsDone(FunctionCall(responseID: "R1", itemID: "F1", callID: "c1", name: "ask_jarvis", arguments: "{}")))
        h.server(.responseDone(ResponseInfo(id: "R1", status: "cancelled", statusReason: "turn_detected")), after: 5)
        #expect(h.last.toolCalls.isEmpty)
    }

    @Test func toolResultWhileUserSpeaksWaitsForTheirTurn() {
        var h = waitingForJarvis(received: 2_400)
        #expect(h.state == .waitingForJarvis)
        h.server(.speechStarted(audioStartMs: 9_000, itemID: "U2"), after: 500)
        #expect(h.state == .userSpeaking)
        h.handle(.toolFinished(callID: "c1", output: .success("answer")), after: 300)
        #expect(
            h.lastSent == [.conversationItemCreate(.functionCallOutput(callID: "c1", output: "answer"))],
            "no response.create while the user talks; the response to their turn will see the output")
        h.server(.speechStopped(audioEndMs: 10_000, itemID: "U2"), after: 700)
        #expect(h.lastSent == [.responseCreate(nil)], "one response for their turn; it sees the output too")
        #expect(h.state == .processing)

        // If the user's turn is dropped instead (tap), the owed answer is requested.
        var g = waitingForJarvis(received: 2_400)
        g.server(.speechStarted(audioStartMs: 9_000, itemID: "U2"), after: 500)
        g.handle(.toolFinished(callID: "c1", output: .success("answer")), after: 300)
        g.handle(.button(.tap(pressedAt: g.now)), after: 100)
        #expect(g.lastSent == [.inputAudioBufferClear, .responseCreate(nil)])
        #expect(g.state == .processing)
    }
}
