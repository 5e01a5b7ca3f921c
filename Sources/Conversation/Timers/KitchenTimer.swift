/// One timer ("ten minutes for the pasta") or alarm ("at seven") the owner set.
public struct KitchenTimer: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        /// Runs for a duration on the monotonic clock: a wall-clock step does not move it.
        case duration
        /// Rings at a wall-clock time: a wall-clock step moves it, as it moves every clock in the house.
        case alarm
    }

    /// Short and speakable: "1", "2", …
    public var id: String
    public var label: String?
    public var kind: Kind
    /// When it is due on the wall clock (Unix milliseconds): an alarm's own time; for a duration timer,
    /// its end as last known, which is what a restart goes on from.
    public var dueEpochMilliseconds: Int64
    /// A duration timer's end on this process's monotonic clock.
    public var dueMonotonic: EngineTime?

    public init(id: String, label: String?, kind: Kind, dueEpochMilliseconds: Int64, dueMonotonic: EngineTime? = nil) {
        self.id = id
        self.label = label
        self.kind = kind
        self.dueEpochMilliseconds = dueEpochMilliseconds
        self.dueMonotonic = dueMonotonic
    }

    /// Milliseconds until it is due (negative once past), by the clock its kind runs on.
    func remainingMilliseconds(monotonic: EngineTime, wallEpochMilliseconds: Int64) -> Int64 {
        if kind == .duration, let dueMonotonic { return dueMonotonic.milliseconds - monotonic.milliseconds }
        return dueEpochMilliseconds - wallEpochMilliseconds
    }

    /// "the pasta timer", "timer 2", "the 7:00 alarm": how the assistant names it.
    public var spokenName: String {
        switch (kind, label) {
        case (.duration, let label?): "the \(label) timer"
        case (.duration, nil): "timer \(id)"
        case (.alarm, let label?): "the \(label) alarm"
        case (.alarm, nil): "alarm \(id)"
        }
    }
}

/// A timer that has gone off, and how late (it fell due while the box was off).
public struct TimerRing: Sendable, Equatable {
    public var timer: KitchenTimer
    /// Whole seconds it went off before it could ring; 0 when it rang on time.
    public var lateSeconds: Int

    public init(timer: KitchenTimer, lateSeconds: Int) {
        self.timer = timer
        self.lateSeconds = lateSeconds
    }
}
