/// The one retry policy: exponential backoff from `initial`, doubling per consecutive failure up to
/// `maximum`, spread by ±`jitter` so that many clients do not retry in step. A value also counts the
/// consecutive failures it has seen (`next`, `reset`), so a retry loop holds one `Backoff` and nothing else.
///
/// Pure arithmetic: no allocation, no locks, safe on the realtime audio threads.
public struct Backoff: Sendable, Hashable {
    /// Delay before the first retry.
    public var initial: Duration
    /// Cap on the exponential part (the jitter spreads around it).
    public var maximum: Duration
    /// Relative spread, 0...1: a delay `d` becomes `d × (1 - jitter + 2 × jitter × unit)` for `unit` in 0...1.
    public var jitter: Double
    /// Consecutive failures counted by `next(unit:)` since the last `reset()`.
    public private(set) var failures = 0

    public init(initial: Duration, maximum: Duration, jitter: Double = 0) {
        self.initial = max(initial, .zero)
        self.maximum = max(maximum, self.initial)
        self.jitter = min(max(jitter, 0), 1)
    }

    // The defaults of every retry loop, in one place.

    /// Reopening a vanished audio device: 100 ms doubling up to 5 s, no jitter (one device, one loop).
    public static let deviceReopen = Backoff(initial: .milliseconds(100), maximum: .seconds(5))
    /// Reopening a Realtime session that failed while connecting: 250 ms doubling up to 2 s, ±25 %.
    public static let realtimeReconnect = Backoff(initial: .milliseconds(250), maximum: .seconds(2), jitter: 0.25)
    /// Reconnecting a radio stream or podcast download: 500 ms doubling up to 30 s, ±25 %.
    public static let mediaReconnect = Backoff(initial: .milliseconds(500), maximum: .seconds(30), jitter: 0.25)
    /// Reconnecting to a snapserver: 1 s (snapclient's fixed delay) doubling up to 10 s, ±25 %.
    public static let snapcastReconnect = Backoff(initial: .seconds(1), maximum: .seconds(10), jitter: 0.25)

    /// The delay before retry `attempt` (1-based; below 1 counts as 1), rounded to whole milliseconds.
    /// `unit` in 0...1 places it within the jitter (0.5: the exponential value itself; clamped).
    public func delay(attempt: Int, unit: Double = 0.5) -> Duration {
        .milliseconds(delayMilliseconds(attempt: attempt, unit: unit))
    }

    /// As `delay(attempt:unit:)`, but never sooner than a server's `Retry-After` (`notBefore`), when it gave one.
    public func delay(attempt: Int, unit: Double = 0.5, notBefore: Duration?) -> Duration {
        max(delay(attempt: attempt, unit: unit), notBefore ?? .zero)
    }

    /// `delay(attempt:unit:)` in whole milliseconds.
    public func delayMilliseconds(attempt: Int, unit: Double = 0.5) -> Int64 {
        let doublings = min(max(attempt, 1) - 1, 30)
        let capped = min(maximum.inSeconds, initial.inSeconds * Double(1 << doublings)) * 1_000
        let factor = 1 - jitter + 2 * jitter * min(max(unit, 0), 1)
        return Int64((capped * factor).rounded())
    }

    /// Counts one more failure and returns the delay before the next attempt.
    public mutating func next(unit: Double = 0.5) -> Duration {
        .milliseconds(nextMilliseconds(unit: unit))
    }

    /// `next(unit:)` in whole milliseconds (what the audio loops sleep by).
    public mutating func nextMilliseconds(unit: Double = 0.5) -> Int64 {
        failures = failures < Int.max ? failures + 1 : failures
        return delayMilliseconds(attempt: failures, unit: unit)
    }

    /// A success: the next failure waits `initial` again.
    public mutating func reset() { failures = 0 }
}
