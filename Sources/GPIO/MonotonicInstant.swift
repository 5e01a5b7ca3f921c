import Basics

/// A point on CLOCK_MONOTONIC in nanoseconds: the clock of kernel GPIO edge timestamps (Linux >= 5.7)
/// and of the GPIO threads' timers. Tests build instants by hand (a manual clock).
public struct MonotonicInstant: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    public static func milliseconds(_ ms: Int64) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: ms * 1_000_000)
    }

    /// The current CLOCK_MONOTONIC time.
    public static var now: MonotonicInstant {
        MonotonicInstant(nanoseconds: GPIOCalls.monotonicNanoseconds())
    }

    public static func < (a: MonotonicInstant, b: MonotonicInstant) -> Bool {
        a.nanoseconds < b.nanoseconds
    }

    public static func + (a: MonotonicInstant, d: Duration) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: a.nanoseconds + d.nanoseconds)
    }

    public static func - (a: MonotonicInstant, b: MonotonicInstant) -> Duration {
        .nanoseconds(a.nanoseconds - b.nanoseconds)
    }

    public var description: String {
        "\(nanoseconds / 1_000_000).\(String(nanoseconds % 1_000_000 / 1000).leftPadded(to: 3)) ms"
    }
}

extension Duration {
    /// Milliseconds rounded up, for poll() timeouts; negative durations give 0.
    var pollTimeoutMilliseconds: Int32 {
        let ns = nanoseconds
        if ns <= 0 { return 0 }
        return Int32(clamping: (ns + 999_999) / 1_000_000)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
