import Basics
import Synchronization

/// The talk button: a small thread polls the GPIO line (and a wake-up fd), feeds edges into a
/// `GestureRecognizer`, fires its hold timers, and delivers gestures into `gestures`.
/// `inject(pressed:)` feeds the same recognizer from elsewhere (`ctl press` / `ctl release`), which
/// also works without any GPIO line.
public final class ButtonGestureSource: Sendable {
    /// Gestures in order. Finishes on `stop()`; throws a `GPIOError` if reading the line fails
    /// (the thread then ends).
    public let gestures: AsyncThrowingStream<ButtonGesture, any Error>
    /// The GPIO line, or nil when the button is disabled (injection only).
    public let input: GPIOInputLine?

    private let core: Core
    private let thread: GPIOEventThread

    private final class Core: Sendable {
        struct State {
            var recognizer: GestureRecognizer
            var injected: [(pressed: Bool, at: MonotonicInstant)] = []
        }
        let input: GPIOInputLine?
        let state: Mutex<State>
        let continuation: AsyncThrowingStream<ButtonGesture, any Error>.Continuation

        init(
            input: GPIOInputLine?, recognizer: GestureRecognizer,
            continuation: AsyncThrowingStream<ButtonGesture, any Error>.Continuation
        ) {
            self.input = input
            self.state = Mutex(State(recognizer: recognizer))
            self.continuation = continuation
        }

        func step(_ wake: GPIOEventThread.Wake) -> GPIOEventThread.Next {
            var edges: [GPIOEdge] = []
            var failure: GPIOError?
            if wake == .line, let input {
                do { edges = try input.readEdges() } catch { failure = error }
            }
            let now = MonotonicInstant.now
            let (gestures, deadline) = state.withLock { s in
                var out: [ButtonGesture] = []
                for edge in edges {
                    out += s.recognizer.edge(pressed: edge.rising, at: Self.plausible(edge.timestamp, now: now))
                }
                for i in s.injected { out += s.recognizer.edge(pressed: i.pressed, at: i.at) }
                s.injected.removeAll()
                out += s.recognizer.advance(to: now)
                return (out, s.recognizer.nextDeadline)
            }
            for g in gestures { continuation.yield(g) }
            if let failure {
                continuation.finish(throwing: failure)
                return .exit
            }
            return .wait(deadline.map { $0 - now })
        }

        /// Kernel edge timestamps are CLOCK_MONOTONIC since Linux 5.7 (realtime before); if one is
        /// far from our clock, date the edge when we read it instead.
        static func plausible(_ t: MonotonicInstant, now: MonotonicInstant) -> MonotonicInstant {
            let skew = (now - t).nanoseconds
            return skew >= 0 && skew < 5_000_000_000 ? t : now
        }
    }

    /// Starts the thread. `input` nil: no GPIO, gestures come only from `inject(pressed:)`.
    public init(
        input: GPIOInputLine?, settings: GestureRecognizer.Settings = .init(),
        threadName: String = "gpio:button"
    ) throws(GPIOError) {
        let (stream, continuation) = AsyncThrowingStream<ButtonGesture, any Error>.makeStream()
        let core = Core(input: input, recognizer: GestureRecognizer(settings: settings), continuation: continuation)
        self.gestures = stream
        self.input = input
        self.core = core
        do {
            self.thread = try GPIOEventThread(name: threadName, chip: input?.chip ?? "button", lineFD: input?.fileDescriptor ?? -1) {
                core.step($0)
            }
        } catch {
            continuation.finish()
            throw error
        }
    }

    /// Opens the button's line and starts the thread.
    public convenience init(
        line: ButtonLineSettings, gestures: GestureRecognizer.Settings = .init(),
        consumer: String = "jarvis-voice"
    ) throws(GPIOError) {
        try self.init(input: GPIOInputLine(line, consumer: consumer), settings: gestures)
    }

    /// A press or release from outside the GPIO line (control socket), dated now. Debounced like
    /// the line, so a press and a release less than `debounce` apart cancel out; send a `tap`
    /// straight to the engine instead of injecting one.
    public func inject(pressed: Bool) {
        let now = MonotonicInstant.now
        core.state.withLock { $0.injected.append((pressed, now)) }
        thread.wake()
    }

    /// Stops and joins the thread and finishes `gestures`. Idempotent.
    public func stop() {
        thread.stop()
        core.continuation.finish()
    }

    deinit {
        stop()
    }
}
