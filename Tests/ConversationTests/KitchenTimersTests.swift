import Glibc
import Synchronization
import TestProcess
import Testing

@testable import Conversation

/// Timers and alarms outside the engine: two clocks stepped by hand, the state file, and the scheduler.
@Suite struct KitchenTimersTests {
    /// A monotonic and a wall clock the test moves.
    final class Clocks: Sendable {
        let monotonic = Mutex<Int64>(1_000)
        let wall = Mutex<Int64>(1_780_000_000_000)
        var clocks: KitchenTimers.Clocks {
            KitchenTimers.Clocks(
                monotonic: { EngineTime(milliseconds: self.monotonic.withLock { $0 }) },
                wallEpochMilliseconds: { self.wall.withLock { $0 } })
        }
        func advance(_ ms: Int64) {
            monotonic.withLock { $0 += ms }
            wall.withLock { $0 += ms }
        }
        func stepWall(_ ms: Int64) { wall.withLock { $0 += ms } }
    }

    @Test func aDurationTimerIsDueOnTheMonotonicClockAndAnAlarmOnTheWallClock() throws {
        let dir = TemporaryDirectory(prefix: "jarvis-voice-timers")
        let clock = Clocks()
        let timers = KitchenTimers(stateDirectory: dir.path, clocks: clock.clocks)
        let pasta = try timers.add(seconds: 600, label: "pasta")
        let wall = clock.wall.withLock { $0 }
        let alarmDue = KitchenTimers.nextOccurrence(hour: 7, minute: 0, afterEpochMilliseconds: wall)
        let alarm = try timers.addAlarm(at: "07:00", label: "wake up")
        #expect(timers.list().map(\.timer.id).contains(alarm.id) && pasta.spokenName == "the pasta timer")
        let alarmLeft = try #require(timers.list().first { $0.timer.id == alarm.id }).secondsLeft
        #expect(alarmLeft == Int((alarmDue - wall + 999) / 1000))

        // The wall clock steps an hour ahead (NTP at boot): the alarm comes an hour sooner, the pasta does not.
        clock.stepWall(3_600_000)
        let after = Dictionary(uniqueKeysWithValues: timers.list().map { ($0.timer.id, $0.secondsLeft) })
        #expect(after[pasta.id] == 600, "a duration timer ignores the wall clock")
        #expect(after[alarm.id] == alarmLeft - 3_600 || alarmLeft <= 3_600, "the alarm moves with the clock")

        clock.advance(599_000)
        #expect(timers.takeDue().isEmpty)
        #expect(timers.nextWake() == .milliseconds(1_000))
        clock.advance(1_000)
        #expect(timers.takeDue().map(\.timer.id) == [pasta.id])
        #expect(timers.takeDue().isEmpty, "handed out once")
    }

    /// A restart goes on with the timers; one that fell due while the box was off rings at once, late.
    @Test func timersSurviveARestartAndOneDueMeanwhileIsLate() throws {
        let dir = TemporaryDirectory(prefix: "jarvis-voice-timers")
        let clock = Clocks()
        let before = KitchenTimers(stateDirectory: dir.path, clocks: clock.clocks)
        _ = try before.add(seconds: 60, label: "eggs")
        _ = try before.add(seconds: 3_600, label: "roast")
        var info = stat()
        #expect(stat(dir.path + "/timers.json", &info) == 0 && info.st_mode & 0o777 == 0o600)

        clock.advance(5 * 60_000)  // the box was off for five minutes; the monotonic clock starts anew
        clock.monotonic.withLock { $0 = 0 }
        let after = KitchenTimers(stateDirectory: dir.path, clocks: clock.clocks)
        let rang = after.takeDue()
        #expect(rang.map(\.timer.label) == ["eggs"] && rang.first?.lateSeconds == 240)
        #expect(after.list().map(\.secondsLeft) == [3_300])
        #expect(try after.add(seconds: 10, label: nil).id == "3", "ids go on")
        #expect(try after.cancel("ROAST").map(\.label) == ["roast"])
        #expect(throws: KitchenTimers.Failure.notFound("roast")) { try after.cancel("roast") }
    }

    @Test func anUnusableFileStartsEmptyWithOneSentence() {
        let dir = TemporaryDirectory(prefix: "jarvis-voice-timers")
        dir.write("timers.json", #"{"timers":[{"id":1}]}"#)
        let problems = Mutex<[String]>([])
        let timers = KitchenTimers(stateDirectory: dir.path, clocks: Clocks().clocks) { line in problems.withLock { $0.append(line) } }
        #expect(timers.list().isEmpty && problems.withLock { $0.count } == 1)
    }

    /// Alarms are local wall-clock times: whatever the zone and its daylight saving, the time found shows
    /// the hour and minute asked for on this machine's clock, within the next day.
    @Test func anAlarmFallsOnTheLocalTimeAskedFor() {
        let start: Int64 = 1_774_746_000_000  // 2026-03-29 01:00 UTC: the EU spring-forward night
        for (hour, minute) in [(0, 0), (2, 30), (7, 0), (23, 59)] {
            let due = KitchenTimers.nextOccurrence(hour: hour, minute: minute, afterEpochMilliseconds: start)
            var seconds = time_t(due / 1000)
            var fields = tm()
            localtime_r(&seconds, &fields)
            #expect(due > start && due - start <= 25 * 3_600_000)
            #expect(
                (Int(fields.tm_hour), Int(fields.tm_min)) == (hour, minute) || (hour == 2 && fields.tm_hour == 3),
                "\(hour):\(minute) -> \(fields.tm_hour):\(fields.tm_min)")
        }
        #expect(KitchenTimers.timeOfDay("7:05")! == (7, 5) && KitchenTimers.timeOfDay("24:00") == nil && KitchenTimers.timeOfDay("7") == nil)
    }
}
