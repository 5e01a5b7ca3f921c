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
        let onPress: @Sendable () -> Void

        init(
            input: GPIOInputLine?, recognizer: GestureRecognizer,
            continuation: AsyncThrowingStream<ButtonGesture, any Error>.Continuation, onPress: @escaping @Sendable () -> Void
        ) {
            self.input = input
            self.state = Mutex(State(recognizer: recognizer))
            self.continuation = continuation
            self.onPress = onPress
        }

        func step(_ wake: GPIOEventThread.Wake) -> GPIOEventThread.Next {
            var edges: [GPIOEdge] = []
            var failure: GPIOError?
            if wake == .line, let input {
                do { edges = try input.readEdges() } catch { failure = error }
            }
            let now = MonotonicInstant.now
            let (gestures, deadline, pressed) = state.withLock { s in
                // Any edge down, bounce or not, before it is debounced: a hold's pre-roll starts there.
                let pressed = edges.contains { $0.rising } || s.injected.contains { $0.pressed }
                var out: [ButtonGesture] = []
                for edge in edges {
                    out += s.recognizer.edge(pressed: edge.rising, at: Self.plausible(edge.timestamp, now: now))
                }
                for i in s.injected { out += s.recognizer.edge(pressed: i.pressed, at: i.at) }
                s.injected.removeAll()
                out += s.recognizer.advance(to: now)
                return (out, s.recognizer.nextDeadline, pressed)
            }
            if pressed { onPress() }
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

    /// Starts the thread. `input` nil: no GPIO, gestures come only from `inject(pressed:)`. `onPress` is
    /// called on the thread as soon as the button goes down (undebounced, before any gesture is known: the
    /// audio side gets ready for a hold's pre-roll); it must not block.
    public init(
        input: GPIOInputLine?, settings: GestureRecognizer.Settings = .init(),
        threadName: String = "gpio:button", onPress: @escaping @Sendable () -> Void = {}
    ) throws(GPIOError) {
        let (stream, continuation) = AsyncThrowingStream<ButtonGesture, any Error>.makeStream()
        let core = Core(
            input: input, recognizer: GestureRecognizer(settings: settings), continuation: continuation, onPress: onPress)
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
        consumer: String = "jarvis-voice", onPress: @escaping @Sendable () -> Void = {}
    ) throws(GPIOError) {
        try self.init(input: GPIOInputLine(line, consumer: consumer), settings: gestures, onPress: onPress)
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
