import Synchronization

/// Monotonic time as an offset from an arbitrary origin; injectable so session expiry and the
/// circuit breaker can be tested with a manual clock.
public struct JarvisClock: Sendable {
    public let now: @Sendable () -> Duration

    public init(now: @escaping @Sendable () -> Duration) {
        self.now = now
    }

    /// The process's continuous clock.
    public static var continuous: JarvisClock {
        let origin = ContinuousClock.now
        return JarvisClock { ContinuousClock.now - origin }
    }
}

/// A clock that moves only when told to.
public final class ManualJarvisClock: Sendable {
    private let current = Mutex<Duration>(.zero)

    public init() {}

    public var clock: JarvisClock { JarvisClock { [self] in current.withLock { $0 } } }

    public func advance(by duration: Duration) {
        current.withLock { $0 += duration }
    }
}
