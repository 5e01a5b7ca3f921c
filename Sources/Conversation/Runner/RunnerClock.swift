import Basics

/// The runner's monotonic time: `EngineTime` milliseconds since the runner was made, and sleeping until
/// such an instant. Built from any `Clock` with `Duration` steps (`ContinuousClock` in the service, a
/// manual clock in tests).
public struct RunnerClock: Sendable {
    private let elapsed: @Sendable () -> Duration
    private let sleepUntil: @Sendable (Duration) async throws -> Void

    public init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
        sleepUntil = { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) }
    }

    public static var continuous: RunnerClock { RunnerClock(ContinuousClock()) }

    public func now() -> EngineTime { EngineTime(milliseconds: elapsed().wholeMilliseconds) }

    /// Returns at or after `deadline`; throws `CancellationError` when the task is cancelled first.
    public func sleep(until deadline: EngineTime) async throws {
        try await sleepUntil(.milliseconds(deadline.milliseconds))
    }

    public func sleep(for duration: Duration) async throws {
        try await sleepUntil(elapsed() + duration)
    }
}
