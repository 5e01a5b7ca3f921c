import Basics
import Realtime
import Testing

@testable import Conversation

/// Timers going off, in the engine: the sound repeats with media ducked, what rang is said, and a tap,
/// `ctl timer stop` or the cap silences it.
@Suite struct TimerRingingTests {
    static func ring(_ label: String?, id: String = "1", late: Int = 0) -> TimerRing {
        TimerRing(timer: KitchenTimer(id: id, label: label, kind: .duration, dueEpochMilliseconds: 0), lateSeconds: late)
    }

    static func said(_ effects: [ConversationEffect]) -> [String] {
        EngineHarness.sent(effects).compactMap { if case .conversationItemCreate(.message(_, let text)) = $0 { text } else { nil } }
    }

    @Test func aTimerRingsWithMediaDuckedUntilATapStopsIt() {
        var h = EngineHarness()
        h.handle(.timersRang([Self.ring("pasta")]))
        #expect(h.last.contains(.duckMedia) && h.last.contains(earcon: .timer) && h.last.contains(.setLED(.ringing)))
        #expect(!h.last.contains(.connectRealtime), "the voice waits for the sound")
        #expect(h.fireNextTimer() == .timerSay && h.now == EngineTime(milliseconds: 380))
        #expect(h.last.contains(.connectRealtime), "a session to say it")
        h.handle(.realtimeConnected, after: 100)
        h.server(.sessionCreated(SessionInfo(id: "s")), after: 50)
        #expect(Self.said(h.last) == ["Time's up: the pasta timer."])
        #expect(h.fireNextTimer() == .timerChime && h.last.contains(earcon: .timer), "the sound again")
        h.handle(.button(.tap(pressedAt: h.now)), after: 500)
        #expect(h.engine.ringing == nil && h.last.contains(.unduckMedia) && h.state == .idle)
        #expect(h.engine.armedTimers[.timerChime] == nil && h.engine.armedTimers[.ringCap] == nil)
    }

    @Test func aSecondTimerGoingOffIsSaidByItself() {
        var h = EngineHarness()
        h.handle(.timersRang([Self.ring("pasta")]))
        h.fire(.timerSay)
        h.handle(.realtimeConnected, after: 100)
        h.server(.sessionCreated(SessionInfo(id: "s")), after: 50)
        h.handle(.timersRang([Self.ring("tea", id: "2")]), after: 500)
        h.fire(.timerSay)
        #expect(h.engine.ringing?.rings.count == 2)
        #expect(h.engine.pendingAnnouncements.map(\.text) == ["Time's up: the tea timer."], "only the new one, after the pasta timer was sent")
    }

    @Test func theSayingsEndDoesNotUnduckWhileItStillRings() {
        var h = EngineHarness()
        h.handle(.timersRang([Self.ring("pasta")]))
        h.fire(.timerSay)
        h.handle(
            .realtimeFailed(RealtimeDisconnect(kind: .transient, reason: .unreachable(host: "api.openai.com", .connectionRefused)), fatal: true),
            after: 100)
        #expect(!h.last.contains(.unduckMedia), "the API is unreachable: the sound alone goes on, media stays down")
        #expect(h.engine.ringing != nil)
        h.handle(.stopRinging, after: 200)
        #expect(h.engine.ringing == nil && h.last.contains(.unduckMedia), "stopped: media comes back")
    }

    @Test func theCapSilencesItAndSeveralAreSaidTogether() {
        var h = EngineHarness(configuration: ConversationConfiguration(ringCap: .seconds(20)))
        h.handle(.timersRang([Self.ring("pasta"), Self.ring(nil, id: "2", late: 720)]))
        #expect(h.last.contains { if case .log(.notice, let line) = $0 { line.contains("the pasta timer and timer 2") } else { false } })
        #expect(
            ConversationEngine.sentence(for: [Self.ring("pasta"), Self.ring(nil, id: "2", late: 720)])
                == "Time's up: the pasta timer and timer 2. They went off 12 minutes ago, while the speaker was off.")
        h.fire(.ringCap)
        #expect(h.engine.ringing == nil)
        #expect(h.last.contains { if case .log(.info, let line) = $0 { line.contains("it rang for 20 s") } else { false } })
    }

    @Test func ctlTimerStopSilencesItAndNothingRingingIsANoOp() {
        var h = EngineHarness()
        h.handle(.stopRinging)
        #expect(h.last.isEmpty)
        h.handle(.timersRang([Self.ring("tea")]), after: 10)
        h.handle(.stopRinging, after: 10)
        #expect(h.engine.ringing == nil)
    }
}
