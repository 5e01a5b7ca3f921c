/// What the status LED shows. Each pattern is a fixed on/off schedule that repeats from the moment
/// it is shown, so the lit state is a pure function of the time since then.
public enum LEDPattern: String, Sendable, CaseIterable, CustomStringConvertible {
    case off
    /// Fast blink, like `thinking`: opening the Realtime session.
    case connecting
    /// Steady on: the mic is open.
    case listening
    /// Fast blink (150 ms on, 150 ms off): waiting for the model or Jarvis.
    case thinking
    /// Mostly on with a short dip (800 ms on, 200 ms off): the assistant is talking.
    case speaking
    /// Three quick flashes, then a pause: something failed.
    case error
    /// A short blip every 2 s: no connection.
    case offline
    /// Two short flashes every 3 s, for as long as it lasts: the microphone is muted.
    case muted
    /// Quick, even flashing (250 ms on, 250 ms off): a timer is ringing; a tap stops it.
    case ringing

    public struct Step: Sendable, Equatable {
        public var lit: Bool
        public var duration: Duration
    }

    /// One period of the schedule; a single step means a steady level.
    public var steps: [Step] {
        func on(_ ms: Int64) -> Step { Step(lit: true, duration: .milliseconds(ms)) }
        func dark(_ ms: Int64) -> Step { Step(lit: false, duration: .milliseconds(ms)) }
        switch self {
        case .off: return [dark(1000)]
        case .listening: return [on(1000)]
        case .connecting, .thinking: return [on(150), dark(150)]
        case .speaking: return [on(800), dark(200)]
        case .error: return [on(100), dark(100), on(100), dark(100), on(100), dark(1000)]
        case .offline: return [on(100), dark(1900)]
        case .muted: return [on(100), dark(150), on(100), dark(2650)]
        case .ringing: return [on(250), dark(250)]
        }
    }

    /// Whether the LED is lit `elapsed` after the pattern started (negative counts as 0).
    public func isLit(after elapsed: Duration) -> Bool {
        let steps = self.steps
        guard steps.count > 1 else { return steps[0].lit }
        return steps[position(of: elapsed, in: steps).index].lit
    }

    /// The next time after `elapsed` (measured from the start) at which the lit state changes,
    /// or nil for a steady pattern.
    public func nextChange(after elapsed: Duration) -> Duration? {
        let steps = self.steps
        guard steps.count > 1 else { return nil }
        let (index, offset) = position(of: elapsed, in: steps)
        let lit = steps[index].lit
        let start = max(elapsed, .zero)
        var until = steps[index].duration - offset
        var i = (index + 1) % steps.count
        while steps[i].lit == lit {
            until += steps[i].duration
            i = (i + 1) % steps.count
        }
        return start + until
    }

    public var description: String { rawValue }

    private func position(of elapsed: Duration, in steps: [Step]) -> (index: Int, offset: Duration) {
        let period = steps.reduce(Int64(0)) { $0 + $1.duration.nanoseconds }
        var t = max(elapsed.nanoseconds, 0) % period
        for (i, step) in steps.enumerated() {
            let d = step.duration.nanoseconds
            if t < d { return (i, .nanoseconds(t)) }
            t -= d
        }
        return (steps.count - 1, .zero)
    }
}
