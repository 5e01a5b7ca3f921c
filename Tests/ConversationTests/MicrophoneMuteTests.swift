import Basics
import Realtime
import Testing

@testable import Conversation

/// The microphone privacy mute in the engine: while it is on, nothing that listens starts, so no uplink
/// capture or stream is ever asked for; a tap or a hold says the microphone is off instead.
@Suite struct MicrophoneMuteTests {
    static func asksForTheMicrophone(_ effects: [ConversationEffect]) -> Bool {
        effects.contains {
            switch $0 {
            case .uplink(.capture), .uplink(.stream): true
            default: false
            }
        }
    }

    @Test func mutingInIdleIsHeardShownAndKept() {
        var h = EngineHarness()
        h.handle(.muteMicrophone(true))
        #expect(h.engine.microphoneMuted)
        #expect(h.last.contains(.microphoneMuteChanged(true)) && h.last.contains(earcon: .microphoneOff) && h.last.contains(.setLED(.muted)))
        h.handle(.muteMicrophone(true), after: 10)
        #expect(h.last.isEmpty, "no change, nothing to say")
        h.handle(.muteMicrophone(false), after: 10)
        #expect(h.last.contains(.microphoneMuteChanged(false)) && h.last.contains(earcon: .microphoneOn) && h.last.contains(.setLED(.off)))
    }

    @Test func aTapWhileMutedSaysSoWithoutTheMicrophone() {
        var h = EngineHarness()
        h.handle(.muteMicrophone(true))
        h.handle(.button(.tap(pressedAt: h.now)), after: 1_000)
        #expect(h.state == .idle && h.last.contains(earcon: .microphoneOff) && !h.last.contains(.connectRealtime))
        #expect(h.fireNextTimer() == .mutedTap)
        #expect(h.last.contains(.connectRealtime) && !Self.asksForTheMicrophone(h.last), "a session only to say it")
        h.handle(.realtimeConnected, after: 100)
        h.server(.sessionCreated(SessionInfo(id: "s")), after: 50)
        let items = h.lastSent.compactMap { if case .conversationItemCreate(.message(_, let text)) = $0 { text } else { nil } }
        #expect(items == [ConversationEngine.microphoneOffMessage])
        #expect(!Self.asksForTheMicrophone(h.last))
        let update = h.lastSent.first { if case .sessionUpdate = $0 { true } else { false } }
        #expect(update.map { "\($0)".contains("disabled") } == true, "no turn detection: nothing is listened to")
    }

    @Test func aHoldWhileMutedDoesNotOpenTheMicrophone() {
        var h = EngineHarness()
        h.handle(.muteMicrophone(true))
        h.handle(.button(.holdStarted(pressedAt: h.now)), after: 400)
        #expect(h.state == .idle && !Self.asksForTheMicrophone(h.last) && h.last.contains(earcon: .microphoneOff))
        h.handle(.button(.holdEnded), after: 1_000)
        #expect(h.last.isEmpty || !Self.asksForTheMicrophone(h.last))
    }

    @Test func aDoubleTapUnmutesBeforeTheReminderIsSpoken() {
        var h = EngineHarness()
        h.handle(.muteMicrophone(true))
        h.handle(.button(.tap(pressedAt: h.now)), after: 1_000)
        h.handle(.button(.doubleTap), after: 300)
        #expect(!h.engine.microphoneMuted && h.last.contains(earcon: .microphoneOn))
        #expect(h.engine.armedTimers[.mutedTap] == nil, "the reminder is cancelled")
        h.handle(.button(.tap(pressedAt: h.now)), after: 1_000)
        #expect(h.state == .connecting && Self.asksForTheMicrophone(h.last), "listening again")
    }

    @Test func mutingDuringAConversationEndsItAndStopsTheUplink() {
        var h = EngineHarness()
        h.startHandsFree()
        #expect(h.state == .listening)
        h.handle(.button(.doubleTap), after: 500)
        #expect(h.engine.microphoneMuted && h.state == .idle)
        #expect(h.last.contains(.uplink(.stop)) && h.last.contains(.disconnectRealtime) && h.last.contains(.setLED(.muted)))
    }

    @Test func aTypedRequestNeedsNoMicrophoneAndStillWorks() {
        var h = EngineHarness()
        h.handle(.muteMicrophone(true))
        h.handle(.ask("what time is it"), after: 100)
        #expect(h.state == .connecting && !Self.asksForTheMicrophone(h.last))
    }
}
