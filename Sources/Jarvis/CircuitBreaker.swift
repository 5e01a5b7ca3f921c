/// After `threshold` consecutive outages the breaker opens for `cooldown`: questions are answered
/// at once with the last failure. After the cool-down one question goes through (half-open); a
/// success closes the breaker, another failure re-opens it.
public struct CircuitBreaker: Sendable, Equatable {
    public let threshold: Int
    public let cooldown: Duration
    public private(set) var consecutiveFailures = 0
    public private(set) var openUntil: Duration?
    public private(set) var lastFailure: JarvisFailure?

    public init(threshold: Int, cooldown: Duration) {
        self.threshold = max(1, threshold)
        self.cooldown = cooldown
    }

    /// nil: go ahead. Otherwise the failure to answer with immediately.
    public func check(now: Duration) -> JarvisFailure? {
        guard let openUntil, now < openUntil else { return nil }
        return lastFailure
    }

    public func isOpen(now: Duration) -> Bool { check(now: now) != nil }

    public mutating func recordSuccess() {
        consecutiveFailures = 0
        openUntil = nil
        lastFailure = nil
    }

    public mutating func recordFailure(_ failure: JarvisFailure, now: Duration) {
        guard failure.countsAsOutage else { return }
        consecutiveFailures += 1
        lastFailure = failure
        if consecutiveFailures >= threshold { openUntil = now + cooldown }
    }
}
