import Realtime
import Testing

@testable import Conversation

/// Reasoning models speak a preamble: one response carries several assistant audio items (a short
/// preamble, then the answer). Each plays in order; a stop truncates the item being heard at what was heard
/// of it and deletes the items after it, which nobody heard.
@Suite struct PreambleTests {
    /// Hands-free, the user's turn done, one response R1 with a 1 s preamble P1 and a 2 s answer A1, all of
    /// it received (the server sends faster than real time), `played` samples of it heard.
    func preambleThenAnswer(played: Int, responseDone: Bool = false) -> EngineHarness {
        var h = EngineHarness()
        h.startHandsFree()
        h.server(.speechStarted(audioStartMs: 0, itemID: "U1"), after: 100)
        h.server(.speechStopped(audioEndMs: 900, itemID: "U1"), after: 800)
        h.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")))
        h.server(EngineHarness.delta("R1", "P1", samples: 24_000), after: 100)
        h.server(.outputAudioDone(responseID: "R1", itemID: "P1"))
        h.server(EngineHarness.delta("R1", "A1", samples: 48_000), after: 20)
        h.server(.outputAudioDone(responseID: "R1", itemID: "A1"))
        if responseDone { h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")), after: 5) }
        h.handle(.voicePlayed(samples: played), after: 100)
        return h
    }

    @Test func bothItemsPlayInOrderAndTheTurnEndsAfterTheLast() {
        var h = EngineHarness()
        h.startHandsFree()
        h.server(.speechStarted(audioStartMs: 0, itemID: "U1"), after: 100)
        h.server(.speechStopped(audioEndMs: 900, itemID: "U1"), after: 800)
        h.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")))
        var queued: [String] = []
        for (item, samples) in [("P1", 24_000), ("A1", 48_000)] {
            h.server(EngineHarness.delta("R1", item, samples: samples), after: 20)
            queued += h.last.compactMap { if case .enqueueVoice(let id, _) = $0 { id } else { nil } }
            h.server(.outputAudioDone(responseID: "R1", itemID: item))
        }
        #expect(queued == ["P1", "A1"])
        h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")), after: 5)
        #expect(h.engine.voice.current?.id == "P1", "the playhead is on the preamble")
        h.handle(.voicePlayed(samples: 30_000), after: 1_250)
        #expect(h.engine.voice.current?.id == "A1", "and then on the answer")
        #expect(h.state.isSpeaking)
        h.handle(.voicePlayed(samples: 72_000), after: 1_750)
        #expect(h.state == .listening)
        #expect(h.lastSent.isEmpty, "heard to the end: nothing to correct")
        #expect(h.last.contains { if case .turnCompleted(let turn) = $0 { turn.spokenItems == 2 } else { false } }, "the turn: line counts both")
    }

    @Test func aBargeInDuringThePreambleTruncatesItAndDeletesTheUnheardAnswer() {
        var h = preambleThenAnswer(played: 12_000)
        h.server(.speechStarted(audioStartMs: 5_000, itemID: "U2"), after: 10)
        #expect(h.last.contains(.flushVoice))
        #expect(
            h.lastSent == [
                .responseCancel(responseID: nil),
                .conversationItemTruncate(itemID: "P1", contentIndex: 0, audioEndMs: 500),
                .conversationItemDelete(itemID: "A1")
            ])
        #expect(h.state == .userSpeaking)
        h.server(EngineHarness.delta("R1", "A1", samples: 2_400), after: 5)
        #expect(h.last.isEmpty, "late audio of the stopped response is dropped")
    }

    @Test func aTapDuringTheAnswerTruncatesTheAnswerOnly() {
        var h = preambleThenAnswer(played: 24_000 + 12_000, responseDone: true)
        h.handle(.button(.tap(pressedAt: h.now)), after: 10)
        #expect(h.lastSent == [.conversationItemTruncate(itemID: "A1", contentIndex: 0, audioEndMs: 500)])
    }

    @Test func betweenThePreambleAndTheAnswerOnlyTheAnswerIsRemoved() {
        var h = preambleThenAnswer(played: 24_000, responseDone: true)
        h.handle(.button(.tap(pressedAt: h.now)), after: 10)
        #expect(h.lastSent == [.conversationItemDelete(itemID: "A1")], "the preamble was heard whole")
    }

    @Test func beforeAnythingWasHeardTheFirstItemIsCutAtZeroAndTheRestDeleted() {
        var h = preambleThenAnswer(played: 0)
        h.handle(.button(.tap(pressedAt: h.now)), after: 10)
        #expect(
            h.lastSent == [
                .responseCancel(responseID: nil),
                .conversationItemTruncate(itemID: "P1", contentIndex: 0, audioEndMs: 0),
                .conversationItemDelete(itemID: "A1")
            ])
    }

    /// A filler response still playing while the answer's response has arrived: the filler is cut where
    /// it was heard, the answer (another response) removed.
    @Test func itemsOfALaterResponseAreDeletedToo() {
        var h = preambleThenAnswer(played: 6_000, responseDone: true)
        h.server(.responseCreated(ResponseInfo(id: "R2", status: "in_progress")), after: 10)
        h.server(EngineHarness.delta("R2", "B1", samples: 24_000), after: 10)
        h.handle(.button(.tap(pressedAt: h.now)), after: 10)
        #expect(
            h.lastSent == [
                .responseCancel(responseID: nil),
                .conversationItemTruncate(itemID: "P1", contentIndex: 0, audioEndMs: 250),
                .conversationItemDelete(itemID: "A1"), .conversationItemDelete(itemID: "B1")
            ])
    }
}
