import Basics
import Testing

@Suite struct BackoffTests {
    @Test func doublesFromTheInitialDelayUpToTheCap() {
        let backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(5))
        let delays = (1...9).map { backoff.delay(attempt: $0) }
        #expect(delays == [100, 200, 400, 800, 1_600, 3_200, 5_000, 5_000, 5_000].map { Duration.milliseconds($0) })
        #expect(backoff.delay(attempt: 0) == .milliseconds(100), "attempts below 1 count as the first")
        #expect(backoff.delay(attempt: .max) == .seconds(5), "no overflow however long it fails")
    }

    @Test func jitterSpreadsAroundTheExponentialValueWithinItsBounds() {
        let backoff = Backoff(initial: .milliseconds(200), maximum: .seconds(1), jitter: 0.25)
        #expect(backoff.delay(attempt: 1, unit: 0.5) == .milliseconds(200))
        #expect(backoff.delay(attempt: 2, unit: 0.5) == .milliseconds(400))
        #expect(backoff.delay(attempt: 3, unit: 0) == .milliseconds(600))
        #expect(backoff.delay(attempt: 3, unit: 1) == .milliseconds(1_000))
        #expect(backoff.delay(attempt: 9, unit: 0) == .milliseconds(750), "jitter applies to the capped value")
        #expect(backoff.delay(attempt: 9, unit: 1) == .milliseconds(1_250))
        #expect(backoff.delay(attempt: 9, unit: 7) == .milliseconds(1_250), "unit is clamped to 0...1")
        #expect(backoff.delay(attempt: 9, unit: -3) == .milliseconds(750))
        for _ in 0..<200 {
            let delay = backoff.delay(attempt: 2, unit: Double.random(in: 0...1))
            #expect(delay >= .milliseconds(300) && delay <= .milliseconds(500))
        }
    }

    @Test func countsFailuresAndResetsOnSuccess() {
        var backoff = Backoff(initial: .milliseconds(20), maximum: .milliseconds(70))
        #expect(backoff.failures == 0)
        #expect(backoff.next() == .milliseconds(20))
        #expect(backoff.nextMilliseconds() == 40)
        #expect(backoff.next() == .milliseconds(70))
        #expect(backoff.next() == .milliseconds(70))
        #expect(backoff.failures == 4)
        backoff.reset()
        #expect(backoff.failures == 0)
        #expect(backoff.next() == .milliseconds(20), "after a success the next failure waits the initial delay again")
    }

    @Test func clampsItsSettings() {
        let backoff = Backoff(initial: .milliseconds(500), maximum: .milliseconds(100), jitter: 3)
        #expect(backoff.maximum == .milliseconds(500), "the cap is never below the first delay")
        #expect(backoff.jitter == 1)
        #expect(Backoff(initial: .milliseconds(-5), maximum: .zero).delay(attempt: 3) == .zero)
    }

    @Test func theServiceDefaultsLiveHere() {
        #expect(Backoff.deviceReopen.delay(attempt: 1) == .milliseconds(100))
        #expect(Backoff.deviceReopen.delay(attempt: 20) == .seconds(5))
        #expect(Backoff.deviceReopen.jitter == 0)
        #expect(Backoff.realtimeReconnect.delay(attempt: 1) == .milliseconds(250))
        #expect(Backoff.realtimeReconnect.delay(attempt: 20, unit: 1) == .milliseconds(2_500))
        #expect(Backoff.mediaReconnect.delay(attempt: 1) == .milliseconds(500))
        #expect(Backoff.mediaReconnect.delay(attempt: 20) == .seconds(30))
        #expect(Backoff.snapcastReconnect.delay(attempt: 1) == .seconds(1))
        #expect(Backoff.snapcastReconnect.delay(attempt: 20) == .seconds(10))
    }
}
