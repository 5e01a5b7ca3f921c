/// Turns raw button edges into `ButtonGesture`s: a pure value-type state machine with a manual
/// clock. Feed it edges (`pressed` is the logical level, active-low already applied) and ticks;
/// after each call, wake it again at `nextDeadline` (if any) with `advance(to:)`.
///
/// Debounce is trailing-edge: a level counts once it has been stable for `debounce`, and it is
/// dated at the edge that started it, so durations are exact and bounces or spikes shorter than
/// `debounce` vanish. The cost is `debounce` of latency, which a button does not notice.
public struct GestureRecognizer: Sendable {
    public struct Settings: Sendable, Equatable {
        /// A level must be stable this long to count. Default 20 ms.
        public var debounce: Duration
        /// Pressed at least this long: `holdBegan` (push-to-talk) instead of `tap`. Default 400 ms.
        public var hold: Duration
        /// Pressed at least this long: `longHold`. Default 3 s.
        public var longHold: Duration
        /// A tap pressed within this long after the previous tap's release: `doubleTap`. Default 400 ms.
        public var doubleTap: Duration

        public init(
            debounce: Duration = .milliseconds(20), hold: Duration = .milliseconds(400),
            longHold: Duration = .seconds(3), doubleTap: Duration = .milliseconds(400)
        ) {
            self.debounce = max(debounce, .zero)
            self.hold = max(hold, .zero)
            self.longHold = max(longHold, .zero)
            self.doubleTap = max(doubleTap, .zero)
        }
    }

    public let settings: Settings
    /// The debounced level.
    public private(set) var isPressed = false
    /// The latest time the recognizer has seen (edges earlier than this are dated at it).
    public private(set) var now: MonotonicInstant?

    private var rawPressed = false
    private var rawChangedAt = MonotonicInstant(nanoseconds: 0)
    private var pressedAt = MonotonicInstant(nanoseconds: 0)
    private var holdSent = false
    private var longHoldSent = false
    /// When the last tap was released, while a second tap could still make it a double tap.
    private var lastTapEnded: MonotonicInstant?

    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// An edge of the raw (undebounced) line at `time`.
    public mutating func edge(pressed: Bool, at time: MonotonicInstant) -> [ButtonGesture] {
        let t = max(time, now ?? time)
        var out = advance(to: t)
        if pressed != rawPressed {
            rawPressed = pressed
            rawChangedAt = t
            out += advance(to: t)
        }
        return out
    }

    /// Processes every deadline up to and including `time`.
    public mutating func advance(to time: MonotonicInstant) -> [ButtonGesture] {
        if let now, time < now { return [] }
        now = time
        var out: [ButtonGesture] = []
        while let due = nextDue(), due.at <= time {
            switch due.kind {
            case .settle:
                if let g = settle() { out.append(g) }
            case .hold:
                holdSent = true
                out.append(.holdBegan)
            case .longHold:
                longHoldSent = true
                out.append(.longHold)
            }
        }
        return out
    }

    /// When the recognizer must be advanced next, or nil when only an edge can change anything.
    public var nextDeadline: MonotonicInstant? {
        nextDue()?.at
    }

    private enum DeadlineKind { case settle, hold, longHold }

    private func nextDue() -> (at: MonotonicInstant, kind: DeadlineKind)? {
        var best: (at: MonotonicInstant, kind: DeadlineKind)?
        func consider(_ at: MonotonicInstant, _ kind: DeadlineKind) {
            if best == nil || at < best!.at { best = (at, kind) }
        }
        let changePending = rawPressed != isPressed
        if changePending { consider(rawChangedAt + settings.debounce, .settle) }
        if isPressed {
            // A release that started before a press deadline decides that deadline: wait for it to settle.
            func blocked(_ d: MonotonicInstant) -> Bool { changePending && rawChangedAt < d }
            let holdAt = pressedAt + settings.hold
            if !holdSent && !blocked(holdAt) { consider(holdAt, .hold) }
            let longAt = pressedAt + max(settings.longHold, settings.hold)
            if holdSent && !longHoldSent && !blocked(longAt) { consider(longAt, .longHold) }
        }
        return best
    }

    private mutating func settle() -> ButtonGesture? {
        isPressed = rawPressed
        if isPressed {
            pressedAt = rawChangedAt
            holdSent = false
            longHoldSent = false
            return nil
        }
        if holdSent {
            lastTapEnded = nil
            return .holdEnded(heldFor: rawChangedAt - pressedAt)
        }
        if let lastTapEnded, pressedAt - lastTapEnded <= settings.doubleTap {
            self.lastTapEnded = nil  // a third tap starts over
            return .doubleTap
        }
        lastTapEnded = rawChangedAt
        return .tap
    }
}
