import ServiceLifecycle

/// Hands the timers to the conversation runner as they fall due: sleeps until the next one, or until one
/// is added or removed, then rings what is due, early by the output's latency so the sound reaches the
/// speaker on time. A timer that fell due while the service was down rings on the first pass, late.
public struct KitchenTimerScheduler: Service {
    let timers: KitchenTimers
    let ring: @Sendable ([TimerRing]) -> Void
    let outputLatency: @Sendable () -> Duration
    let clock: RunnerClock

    /// `outputLatency`: how long a sound queued now takes to be heard (the playback queue).
    public init(
        timers: KitchenTimers, clock: RunnerClock = .continuous, outputLatency: @escaping @Sendable () -> Duration = { .zero },
        ring: @escaping @Sendable ([TimerRing]) -> Void
    ) {
        self.timers = timers
        self.clock = clock
        self.outputLatency = outputLatency
        self.ring = ring
    }

    public func run() async {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let lead = outputLatency()
                let due = timers.takeDue(lead: lead)
                if !due.isEmpty { ring(due) }
                let wait = timers.nextWake(lead: lead)
                await withTaskGroup(of: Void.self) { group in
                    if let wait { group.addTask { try? await clock.sleep(for: wait) } }
                    group.addTask {
                        var changes = timers.changes.makeAsyncIterator()
                        _ = await changes.next()
                    }
                    await group.next()
                    group.cancelAll()
                }
            }
        }
    }
}
