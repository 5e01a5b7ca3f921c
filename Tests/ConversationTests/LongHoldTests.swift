import Realtime
import Testing

@testable import Conversation

/// The long hold resets Jarvis only when the hold was silent (issue #4).
@Suite struct LongHoldTests {
    /// A typed request answered, then a push-to-talk hold.
    static func holdingAfterARequest() -> EngineHarness {
        var h = EngineHarness()
        h.startHandsFree()
        h.handle(.ask("hello"), after: 100)
        h.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")))
        h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")), after: 100)
        h.handle(.button(.holdStarted(pressedAt: h.now)), after: 400)
        return h
    }

    /// `holdingAfterARequest`, and the user speaks in the hold.
    static func holdingWithSpeechAfterARequest() -> EngineHarness {
        var h = holdingAfterARequest()
        h.handle(.userSpeechDetected, after: 300)
        return h
    }

    @Test func aLongPushToTalkRequestWithSpeechIsNotAReset() {
        var h = Self.holdingWithSpeechAfterARequest()
        h.handle(.button(.longHold), after: 2_300)
        #expect(!h.last.contains(.resetJarvisSession) && !h.last.contains(earcon: .reset))
        #expect(h.lastSent.isEmpty, "the hold's audio is kept")
        #expect(h.last.contains(.log(.info, "long hold ignored: the push-to-talk hold carries speech")))
        #expect(h.state == .userSpeaking)
        h.handle(.button(.holdEnded), after: 4_000)
        #expect(h.lastSent == [.inputAudioBufferCommit, .responseCreate(nil)], "a 7 s request is committed")
    }

    @Test func aLongRequestFromIdleIsCommittedToo() {
        var h = EngineHarness()
        h.handle(.button(.holdStarted(pressedAt: .zero)), after: 400)
        h.handle(.userSpeechDetected, after: 200)  // speech in the pre-roll, while connecting
        h.handle(.realtimeConnected, after: 100)
        h.server(.sessionCreated(SessionInfo()), after: 20)
        h.handle(.button(.longHold), after: 2_300)
        #expect(!h.last.contains(.resetJarvisSession))
        #expect(h.state == .userSpeaking)
        h.handle(.button(.holdEnded), after: 3_000)
        #expect(h.lastSent == [.inputAudioBufferCommit, .responseCreate(nil)])
    }

    @Test func aSilentLongHoldResetsAndDiscardsTheHold() {
        var g = Self.holdingAfterARequest()
        g.handle(.button(.longHold), after: 2_600)
        #expect(g.last.contains(.resetJarvisSession) && g.last.contains(earcon: .reset))
        #expect(g.lastSent == [.inputAudioBufferClear])
        #expect(g.last.contains(.uplink(.stop)))
        #expect(g.state == .listening)
        g.handle(.button(.holdEnded), after: 500)
        #expect(!g.lastSent.contains(.inputAudioBufferCommit), "no commit on release")
        // Speech detected after the reset (a stale report) changes nothing.
        g.handle(.userSpeechDetected)
        #expect(g.last.isEmpty)
    }

    @Test func speechFromAnEarlierHoldDoesNotCarryOver() {
        var h = EngineHarness()
        h.startHandsFree()
        h.handle(.button(.holdStarted(pressedAt: h.now)), after: 400)
        h.handle(.userSpeechDetected, after: 300)
        h.handle(.button(.holdEnded), after: 1_000)
        h.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")))
        h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")), after: 100)
        #expect(h.state == .listening)
        h.handle(.button(.holdStarted(pressedAt: h.now)), after: 400)
        h.handle(.button(.longHold), after: 2_600)
        #expect(h.last.contains(.resetJarvisSession), "the second hold was silent")
    }

    @Test func ctlResetResetsEvenDuringARequest() {
        var h = Self.holdingWithSpeechAfterARequest()
        h.handle(.resetJarvis, after: 100)
        #expect(h.last.contains(.resetJarvisSession) && h.last.contains(earcon: .reset))
        #expect(h.lastSent == [.inputAudioBufferClear])
        #expect(h.state == .listening)
    }

    @Test func speechOutsideAHoldIsIgnoredAndCtlResetStillResets() {
        var h = EngineHarness()
        h.startHandsFree()
        h.handle(.userSpeechDetected, after: 100)
        #expect(h.last.isEmpty)
        h.handle(.button(.longHold), after: 100)
        #expect(h.last.contains(.resetJarvisSession) && h.last.contains(earcon: .reset))
        #expect(h.state == .listening)
    }
}
