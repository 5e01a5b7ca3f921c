import Glibc
import Synchronization
import TestProcess
import Testing

@testable import GPIO

private struct TimedOut: Error {}

/// The first `count` gestures, or TimedOut after `limit`.
private func collect(
    _ stream: AsyncThrowingStream<ButtonGesture, any Error>, count: Int,
    limit: Duration = .seconds(5)
) async throws -> [ButtonGesture] {
    try await withThrowingTaskGroup(of: [ButtonGesture]?.self) { group in
        group.addTask {
            var out: [ButtonGesture] = []
            for try await g in stream {
                out.append(g)
                if out.count == count { break }
            }
            return out
        }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        let first = try await group.next()!
        group.cancelAll()
        guard let first else { throw TimedOut() }
        return first
    }
}

@Suite struct GPIOThreadTests {
    private let fast = GestureRecognizer.Settings(
        debounce: .milliseconds(2), hold: .milliseconds(60),
        longHold: .milliseconds(150))

    @Test func injectedPressFiresHoldTimersOnTheThread() async throws {
        let source = try ButtonGestureSource(input: nil, settings: fast)
        let clock = ContinuousClock()
        let start = clock.now
        source.inject(pressed: true)
        let held = try await collect(source.gestures, count: 2)
        #expect(held == [.holdBegan, .longHold])
        #expect(clock.now - start >= .milliseconds(150))
        source.inject(pressed: false)
        let ended = try await collect(source.gestures, count: 1)
        guard case .holdEnded(let d) = ended.first else {
            Issue.record("expected holdEnded, got \(ended)")
            return
        }
        #expect(d >= .milliseconds(150))
        source.stop()
    }

    /// The audio side hears of the press as the button goes down, before any gesture is known (a hold, whose
    /// pre-roll starts there, is recognised only at the hold threshold), and once per press, not per release.
    @Test func theButtonGoingDownIsToldAtOnce() async throws {
        let (presses, pressed) = AsyncStream<Void>.makeStream()
        let source = try ButtonGestureSource(input: nil, settings: GestureRecognizer.Settings(hold: .seconds(30), longHold: .seconds(60))) {
            pressed.yield()
        }
        source.inject(pressed: true)
        var told = presses.makeAsyncIterator()
        #expect(await told.next() != nil)
        source.inject(pressed: false)
        source.stop()
        pressed.finish()
        var more = 0
        while await told.next() != nil { more += 1 }
        #expect(more == 0, "told \(more) more times")
    }

    @Test func injectedShortPressIsATap() async throws {
        // The press is timed on this thread, not with Task.sleep: in a full parallel run the
        // cooperative pool is busy for seconds (a 15 ms Task.sleep was seen lasting 3 s), and a press
        // that long is a hold, correctly. The product's 400 ms hold leaves room for preemption.
        let settings = GestureRecognizer.Settings(debounce: .milliseconds(2), hold: .milliseconds(400))
        let source = try ButtonGestureSource(input: nil, settings: settings)
        let clock = ContinuousClock()
        let start = clock.now
        source.inject(pressed: true)
        usleep(15_000)
        source.inject(pressed: false)
        let pressed = clock.now - start
        #expect(try await collect(source.gestures, count: 1) == [.tap], "pressed for \(pressed)")
        source.stop()
    }

    @Test func stopWakesAnIdleThreadAndFinishesTheStream() async throws {
        let source = try ButtonGestureSource(input: nil, settings: fast)
        let clock = ContinuousClock()
        // The thread is blocked in poll() with no deadline at all.
        try await Task.sleep(for: .milliseconds(20))
        let elapsed = clock.measure { source.stop() }
        #expect(elapsed < .milliseconds(500))
        var count = 0
        for try await _ in source.gestures { count += 1 }
        #expect(count == 0)
        source.stop()  // idempotent
    }

    @Test func stopWhileAHoldTimerIsPending() throws {
        let source = try ButtonGestureSource(input: nil, settings: GestureRecognizer.Settings(hold: .seconds(30), longHold: .seconds(60)))
        source.inject(pressed: true)
        let clock = ContinuousClock()
        #expect(clock.measure { source.stop() } < .milliseconds(500))
    }

    @Test func ledDriverPlaysThePatternAndTurnsOffOnStop() async throws {
        let writes = Mutex<[Bool]>([])
        let led = try LEDDriver(setLevel: { lit in writes.withLock { $0.append(lit) } })
        #expect(await waitUntil { !writes.withLock { $0.isEmpty } })  // the thread's first step, even on a busy machine
        #expect(writes.withLock { $0 } == [false])  // .off is written once
        let clock = ContinuousClock()
        let start = clock.now
        led.show(.thinking)  // 150 ms on / 150 ms off
        #expect(await waitUntil { writes.withLock { $0.count } >= 3 }, "on, then off after 150 ms")
        led.show(.thinking)  // same pattern: no restart, no extra write
        led.stop()
        let elapsed = clock.now - start  // under load the sleep overshoots
        let w = writes.withLock { $0 }
        // The initial off, "on" at 0, one change per 150 ms boundary passed, the off at stop.
        let boundaries = Int(elapsed / .milliseconds(150))
        #expect(w.count >= 3)
        #expect(w.count <= 3 + boundaries, "\(w.count) writes in \(elapsed)")
        #expect(Array(w.prefix(3)) == [false, true, false])
        #expect(zip(w, w.dropFirst()).allSatisfy { $0 != $1 })  // only changes are written
        #expect(w.last == false)
        #expect(led.pattern == .off)
    }

    @Test func ledDriverReportsTheFirstFailureOfAStreak() async throws {
        let errors = Mutex<[GPIOError]>([])
        let attempts = Atomic(0)
        let failure = GPIOError(.setValue, call: "gpiod_line_set_value", chip: "/dev/gpiochip0", line: 27, errno: 5)
        let led = try LEDDriver(
            setLevel: { (_: Bool) throws(GPIOError) in
                attempts.add(1, ordering: .relaxed)
                throw failure
            }, onError: { e in errors.withLock { $0.append(e) } })
        led.show(.thinking)
        #expect(await waitUntil { attempts.load(ordering: .relaxed) >= 4 }, "a streak of failed writes")
        led.stop()
        #expect(errors.withLock { $0 } == [failure])
    }
}
