import Realtime
import Synchronization
import TestProcess
import Testing

@testable import Conversation

/// The runner loop's state, grouped by concern: the Realtime connection's generations and retry
/// decisions, its tasks with tokens (timers on a manual clock), and the voice channel's progress.
@Suite struct RunnerStateTests {
    /// A link that only exists to be held; nothing in these tests reads or sends on it.
    final class IdleLink: RealtimeLink, Sendable {
        let closed = Atomic(false)
        init() {}
        func send(_ text: String) async throws(RealtimeSendError) {}
        func run(deliver: @escaping @Sendable (RealtimeLinkEvent) -> Void) async -> RealtimeDisconnect {
            RealtimeDisconnect(kind: .closedByClient, reason: .clientClosed)
        }
        func close() { closed.store(true, ordering: .relaxed) }
    }

    static func abandon() -> AsyncStream<Never>.Continuation { AsyncStream.makeStream(of: Never.self).continuation }

    @Test func onlyTheCurrentAttemptsOutcomesCount() {
        var connection = RealtimeConnectionState()
        let wanted1 = connection.want()
        #expect(wanted1, "nothing open: connect now")
        let first = connection.beginConnect(abandon: Self.abandon())
        let wanted2 = connection.want()
        #expect(!wanted2, "a connect is in flight")
        let counted1 = connection.connectFailed(first - 1)
        #expect(!counted1, "an older attempt")
        let counted2 = connection.connectFailed(first)
        #expect(counted2)
        let second = connection.beginConnect(abandon: Self.abandon())
        let opened1 = connection.opened(first, IdleLink())
        #expect(!opened1, "a late link of the first attempt is closed by the caller")
        let opened2 = connection.opened(second, IdleLink())
        #expect(opened2)
        #expect(connection.isOpen && connection.isCurrentLink(second) && !connection.isCurrentLink(first))
        let opened3 = connection.opened(second, IdleLink())
        #expect(!opened3, "one session at a time")
    }

    @Test func droppingTheSessionMakesEverythingInFlightStale() {
        var connection = RealtimeConnectionState()
        _ = connection.want()
        let attempt = connection.beginConnect(abandon: Self.abandon())
        let opened = connection.opened(attempt, IdleLink())
        #expect(opened)
        let link = connection.drop()
        #expect(link != nil && !connection.isOpen && !connection.wanted)
        let counted = connection.connectFailed(attempt)
        #expect(!connection.isCurrentLink(attempt) && !counted)
        let dropped = connection.drop()
        #expect(dropped == nil, "nothing left to close")
    }

    @Test func retriesOnlyWhileConnectingAndOneAtATime() {
        var connection = RealtimeConnectionState()
        let retry1 = connection.nextRetry(retryable: true, engineState: .connecting)
        #expect(retry1 == nil, "not wanted")
        _ = connection.want()
        let attempt = connection.beginConnect(abandon: Self.abandon())
        let retry2 = connection.nextRetry(retryable: true, engineState: .connecting)
        #expect(retry2 == nil, "a connect is in flight")
        let counted1 = connection.connectFailed(attempt)
        #expect(counted1)
        let retry3 = connection.nextRetry(retryable: false, engineState: .connecting)
        #expect(retry3 == nil, "fatal")
        let retry4 = connection.nextRetry(retryable: true, engineState: .listening)
        #expect(retry4 == nil, "the engine moved on")
        let retry5 = connection.nextRetry(retryable: true, engineState: .connecting)
        #expect(retry5 == 1)
        connection.scheduled(Task {})
        let retry6 = connection.nextRetry(retryable: true, engineState: .connecting)
        #expect(retry6 == nil, "one is scheduled")
        let due1 = connection.retryDue(attempt - 1, engineState: .connecting)
        #expect(!due1, "stale")
        let due2 = connection.retryDue(attempt, engineState: .idle)
        #expect(!due2, "the engine gave up")
        let due3 = connection.retryDue(attempt, engineState: .connecting)
        #expect(due3)
        let next = connection.beginConnect(abandon: Self.abandon())
        let counted2 = connection.connectFailed(next)
        #expect(counted2)
        let retry7 = connection.nextRetry(retryable: true, engineState: .connecting)
        #expect(retry7 == 2, "backs off further")
        connection.sessionCreated()
        connection.scheduled(Task {})
        let due4 = connection.retryDue(next, engineState: .connecting)
        #expect(due4)
        let retry8 = connection.nextRetry(retryable: true, engineState: .connecting)
        #expect(retry8 == 1, "a session resets the count")
    }

    @Test func countsUnreadableAndUnknownEvents() {
        var connection = RealtimeConnectionState()
        let malformed1 = connection.noteMalformedEvent()
        let malformed2 = connection.noteMalformedEvent()
        #expect(malformed1 == 1 && malformed2 == 2)
        connection.noteUnknownEvent()
        #expect(connection.malformedEvents == 2 && connection.unknownEvents == 1)
    }

    @Test func aReplacedOrCancelledTaskReportsAsStale() async {
        var tools = OwnedTasks<String>(awaitsCancelled: true)
        var tokens: [Int] = []
        tools.start("call") { token in
            tokens.append(token)
            return Task {}
        }
        tools.start("call") { token in
            tokens.append(token)
            return Task {}
        }
        #expect(tools.count == 1)
        let current1 = tools.finished("call", token: tokens[0])
        #expect(!current1, "the replaced one")
        let current2 = tools.finished("call", token: tokens[1])
        #expect(current2)
        let current3 = tools.finished("call", token: tokens[1])
        #expect(tools.count == 0 && !current3, "reported once")
        tools.start("other") { token in
            tokens.append(token)
            return Task {}
        }
        tools.cancel("other")
        let current4 = tools.finished("other", token: tokens[2])
        #expect(tools.count == 0 && !current4)
        await tools.drain()
    }

    @Test func timersOnAManualClockFireByDeadlineAndCancelOnShutdown() async throws {
        let manual = ManualClock()
        let clock = RunnerClock(manual)
        let fired = Locked<[TimerID]>([])
        var timers = OwnedTasks<TimerID>(awaitsCancelled: false)
        for (id, deadline) in [(TimerID.connectTimeout, 100), (.speakingWatchdog, 300)] {
            timers.start(id) { _ in
                Task {
                    guard (try? await clock.sleep(until: EngineTime(milliseconds: Int64(deadline)))) != nil else { return }
                    fired.withLock { $0.append(id) }
                }
            }
        }
        #expect(await waitUntil { manual.sleeperCount == 2 })
        manual.advance(by: .milliseconds(150))
        #expect(await waitUntil { fired.withLock { $0 } == [.connectTimeout] })
        timers.cancelAll()
        await timers.drain()
        #expect(fired.withLock { $0 } == [.connectTimeout], "the cancelled one never fires")
        #expect(manual.sleeperCount == 0)
    }

    @Test func voiceProgressReportsOnlyMovesAndRestartsAfterAFlush() {
        var voice = VoiceOutputProgress()
        let moved1 = voice.played(0)
        #expect(moved1 == nil)
        voice.enqueued(480)
        let moved2 = voice.played(240)
        let moved3 = voice.played(240)
        #expect(moved2 == 240 && moved3 == nil)
        #expect(!voice.needsFlush(engineReceived: 480))
        #expect(voice.needsFlush(engineReceived: 0), "the engine forgot its item: restart the channel's count")
        voice.flushed()
        let moved4 = voice.played(0)
        let moved5 = voice.played(240)
        #expect(!voice.needsFlush(engineReceived: 0) && moved4 == nil && moved5 == 240)
    }
}
