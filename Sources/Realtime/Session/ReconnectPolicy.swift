/// Jittered exponential backoff between reconnect attempts ("equal jitter": half fixed, half random,
/// so two appliances that lost the network together do not retry in lockstep, and no delay is ever ~0).
public struct ReconnectPolicy: Sendable, Equatable {
    /// Delay before the first retry. Default 0.5 s.
    public var initialDelay: Duration
    /// Upper bound for one delay. Default 30 s.
    public var maximumDelay: Duration
    /// Growth per failed attempt. Default 2.
    public var multiplier: Double
    /// Give up (as fatal) after this many consecutive failures; nil (the default) retries forever.
    public var maximumAttempts: Int?

    public init(
        initialDelay: Duration = .milliseconds(500), maximumDelay: Duration = .seconds(30), multiplier: Double = 2,
        maximumAttempts: Int? = nil
    ) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.multiplier = multiplier
        self.maximumAttempts = maximumAttempts
    }

    /// The delay before retry number `attempt` (1-based). `unitRandom` is in 0..<1 (injected for tests).
    public func delay(attempt: Int, unitRandom: Double) -> Duration {
        let initial = Self.seconds(initialDelay)
        let ceiling = Self.seconds(maximumDelay)
        let exponent = Double(max(0, attempt - 1))
        let base = min(ceiling, initial * pow2(multiplier, exponent))
        let jittered = base / 2 + base / 2 * min(max(unitRandom, 0), 1)
        return .nanoseconds(Int64((jittered * 1e9).rounded()))
    }

    static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }

    private func pow2(_ base: Double, _ exponent: Double) -> Double {
        var result = 1.0
        var remaining = Int(exponent)
        while remaining > 0 && result < 1e9 {
            result *= base
            remaining -= 1
        }
        return result
    }
}
