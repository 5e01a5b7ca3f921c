import Realtime
import Testing

@testable import Conversation

/// The owner's announcement (`ctl say`) in the engine, with the manual clock: read verbatim, reported
/// once played out, failed with a plain reason otherwise.
@Suite struct SayTests {
    static func finished(_ effects: [ConversationEffect]) -> [(Int, String?)] {
        effects.compactMap { if case .announcementFinished(let id, let failure) = $0 { (id, failure) } else { nil } }
    }

    static let verbatim = ClientEvent.responseCreate(
        ResponseOptions(instructions: ConversationEngine.sayInstructions, toolChoice: .noTools))

    @Test func inIdleItIsReadVerbatimWithoutToolsAndReportedOncePlayedOut() {
        var h = EngineHarness()
        var all: [ConversationEffect] = []
        all += h.handle(.say(text: "  The laundry is done.  ", id: 7), after: 1_000)
        #expect(h.state == .connecting)
        #expect(h.last.contains(.duckMedia) && h.last.contains(.connectRealtime))
        #expect(!h.last.contains { if case .playEarcon = $0 { true } else { false } }, "no listening earcon")
        all += h.handle(.realtimeConnected, after: 100)
        all += h.server(.sessionCreated(SessionInfo(id: "s1")), after: 50)
        #expect(Array(h.lastSent.suffix(2)) == [AnnouncementTests.systemItem("The laundry is done."), Self.verbatim])
        h.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")))
        h.server(EngineHarness.delta("R1", "A1", samples: 24_000), after: 100)
        h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")), after: 50)
        #expect(Self.finished(h.last).isEmpty, "not before it has been heard")
        all += h.handle(.voicePlayed(samples: 12_000), after: 500)
        #expect(Self.finished(h.last).isEmpty)
        all += h.handle(.voicePlayed(samples: 24_000), after: 500)
        #expect(Self.finished(h.last).map(\.0) == [7])
        #expect(Self.finished(h.last).first.map { $0.1 == nil } == true, "no failure")
        #expect(h.state == .idle)
        #expect(h.last.contains(.unduckMedia) && h.last.contains(.disconnectRealtime))
        #expect(AnnouncementTests.uplinkEffects(all).allSatisfy { $0 == .uplink(.stop) }, "the mic never opens")
    }

    @Test func duringAConversationItWaitsForListeningThenTheConversationContinues() {
        var h = EngineHarness()
        h.startHandsFree()
        h.server(.speechStarted(audioStartMs: 0, itemID: "U1"), after: 100)
        h.handle(.say(text: "Dinner is ready", id: 1), after: 10)
        #expect(h.lastSent.isEmpty, "queued behind the user's turn")
        h.server(.speechStopped(audioEndMs: 900, itemID: "U1"), after: 900)
        h.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")))
        h.server(EngineHarness.delta("R1", "A1", samples: 2_400), after: 100)
        h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")))
        h.handle(.voicePlayed(samples: 2_400), after: 100)
        #expect(h.lastSent.contains(Self.verbatim), "sent once the conversation is listening again")
        #expect(h.state == .processing)
        h.server(.responseCreated(ResponseInfo(id: "R2", status: "in_progress")))
        h.server(EngineHarness.delta("R2", "A2", samples: 4_800), after: 100)
        h.server(.responseDone(ResponseInfo(id: "R2", status: "completed")))
        h.handle(.voicePlayed(samples: 2_400 + 4_800), after: 200)  // counted since the last flush
        #expect(Self.finished(h.last).map(\.0) == [1])
        #expect(h.state == .listening, "the user's conversation goes on")
    }

    @Test func anUnreachableAPIFailsItWithThePlainReason() {
        var h = EngineHarness()
        h.handle(.say(text: "hello", id: 3))
        let unreachable = RealtimeDisconnect(kind: .transient, reason: .unreachable(host: "api.openai.com", .connectionRefused))
        let reason = "cannot reach the Realtime API at api.openai.com: connection refused; check the network"
        #expect(unreachable.description == reason)
        h.handle(.realtimeFailed(unreachable, fatal: true), after: 20)
        #expect(h.state == .error)
        #expect(h.last.contains(earcon: .offline))
        #expect(h.last.contains(.unduckMedia))
        #expect(Self.finished(h.last).count == 1)
        #expect(Self.finished(h.last).first?.1 == reason)
    }

    @Test func aTapWhileItIsSpokenFailsIt() {
        var h = EngineHarness()
        h.handle(.say(text: "hello", id: 4))
        h.handle(.realtimeConnected, after: 100)
        h.server(.sessionCreated(SessionInfo()), after: 50)
        h.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")))
        h.server(EngineHarness.delta("R1", "A1", samples: 24_000), after: 100)
        h.handle(.button(.tap(pressedAt: h.now)), after: 200)
        #expect(Self.finished(h.last).first?.1 == "it was interrupted")
    }

    @Test func aConversationThatEndsBeforeItsTurnHandsItASessionOfItsOwn() {
        var h = EngineHarness()
        h.startHandsFree()
        h.server(.speechStarted(audioStartMs: 0, itemID: "U1"), after: 100)
        h.handle(.say(text: "hello", id: 5), after: 10)
        h.handle(.realtimeDisconnected(RealtimeDisconnect(kind: .transient, reason: .connectionLost)), after: 100)
        #expect(h.state == .error)
        #expect(Self.finished(h.last).first?.1 != nil, "a failed conversation fails it: \(h.last)")

        var g = EngineHarness()
        g.handle(.button(.tap(pressedAt: g.now)))
        g.handle(.say(text: "hello", id: 6), after: 10)
        g.handle(.button(.tap(pressedAt: g.now)), after: 10)  // a tap while connecting ends the user's conversation
        #expect(Self.finished(g.last).isEmpty, "kept for a session of its own: \(g.last)")
        #expect(g.state == .connecting)
        #expect(g.engine.interludeOnly)
        #expect(g.last.firstIndex(of: .disconnectRealtime)! < g.last.lastIndex(of: .connectRealtime)!)
    }

    @Test func oneStillWaitingAfterItsMaximumAgeFails() {
        var h = EngineHarness()
        h.startHandsFree()
        h.server(.speechStarted(audioStartMs: 0, itemID: "U1"), after: 100)
        h.handle(.say(text: "hello", id: 8), after: 10)
        h.server(.speechStopped(audioEndMs: 900, itemID: "U1"), after: 301_000)
        h.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")))
        h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")))
        #expect(Self.finished(h.last).first?.1 == "it waited too long behind a conversation")
    }

    @Test func emptyTextFailsAtOnce() {
        var h = EngineHarness()
        h.handle(.say(text: "   ", id: 9))
        #expect(h.state == .idle)
        #expect(Self.finished(h.last).first?.1 == "there is nothing to say")
    }
}
