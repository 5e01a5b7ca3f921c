import Realtime
import Testing

@testable import Conversation

/// `status.cost_usd`: the engine's running total, and what of it was spent since the owner's midnight.
@Suite struct SpendingLedgerTests {
    let monday = CalendarDay(year: 2026, month: 12, day: 7)!
    var tuesday: CalendarDay { CalendarDay(daysSinceEpoch: monday.daysSinceEpoch + 1) }

    @Test func todayStartsAgainAtMidnightAndSinceStartKeepsGrowing() {
        var ledger = SpendingLedger()
        ledger.record(total: 0.010, today: monday)
        ledger.record(total: 0.025, today: monday)
        #expect(ledger.sinceStart == 0.025 && ledger.spent(on: monday) == 0.025)
        #expect(ledger.spent(on: tuesday) == 0, "nothing spent yet on a new day, before anything is recorded on it")
        ledger.record(total: 0.030, today: tuesday)
        #expect(abs(ledger.spent(on: tuesday) - 0.005) < 1e-12 && ledger.sinceStart == 0.030)
    }

    @Test func theEngineCountsEveryResponseAtItsModelsPrices() {
        var h = EngineHarness()
        h.handle(.announce("The pasta is ready."))
        h.handle(.realtimeConnected, after: 100)
        h.server(.sessionCreated(SessionInfo(id: "s")), after: 50)
        h.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")))
        let usage = EngineHarness.usage(inAudio: 0, inText: 1_400, outAudio: 160, outText: 30)
        h.server(.responseDone(ResponseInfo(id: "R1", status: "completed", usage: usage)), after: 100)
        let expected = RealtimeModels.pricing(for: RealtimeModels.defaultID).cost(of: usage)
        #expect(abs(h.engine.spentUSD - expected) < 1e-12, "an interlude outside any user turn is spending too")
    }
}
