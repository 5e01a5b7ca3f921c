import Basics
import Synchronization

/// Plays `LEDPattern`s on an output: a small thread wakes at each scheduled change and writes the
/// level only when it changes. `show(_:)` switches pattern (showing the current one again keeps its
/// phase); `stop()` turns the LED off.
public final class LEDDriver: Sendable {
    public typealias SetLevel = @Sendable (Bool) throws(GPIOError) -> Void

    private final class Core: Sendable {
        struct State {
            var pattern: LEDPattern = .off
            var since = MonotonicInstant.now
            var written: Bool?
            var failing = false
        }
        let state = Mutex(State())
        let setLevel: SetLevel
        let onError: @Sendable (GPIOError) -> Void

        init(setLevel: @escaping SetLevel, onError: @escaping @Sendable (GPIOError) -> Void) {
            self.setLevel = setLevel
            self.onError = onError
        }

        func step(_ wake: GPIOEventThread.Wake) -> GPIOEventThread.Next {
            let now = MonotonicInstant.now
            let (pattern, since, written) = state.withLock { ($0.pattern, $0.since, $0.written) }
            let elapsed = now - since
            let lit = pattern.isLit(after: elapsed)
            if lit != written { write(lit) }
            return .wait(pattern.nextChange(after: elapsed).map { $0 - elapsed })
        }

        func write(_ lit: Bool) {
            do {
                try setLevel(lit)
                state.withLock {
                    $0.written = lit
                    $0.failing = false
                }
            } catch {
                let first = state.withLock { s in
                    defer { s.failing = true }
                    return !s.failing
                }
                if first { onError(error) }
            }
        }
    }

    private let core: Core
    private let thread: GPIOEventThread

    /// `setLevel` drives the LED (true: lit); `onError` hears the first failure of each streak.
    public init(
        setLevel: @escaping SetLevel, onError: @escaping @Sendable (GPIOError) -> Void = { _ in },
        threadName: String = "gpio:led"
    ) throws(GPIOError) {
        let core = Core(setLevel: setLevel, onError: onError)
        self.core = core
        self.thread = try GPIOEventThread(name: threadName, chip: "led", lineFD: -1) { core.step($0) }
    }

    /// Drives `output`.
    public convenience init(output: GPIOOutputLine, onError: @escaping @Sendable (GPIOError) -> Void = { _ in }) throws(GPIOError) {
        try self.init(setLevel: { (lit: Bool) throws(GPIOError) in try output.set(lit) }, onError: onError)
    }

    /// Opens the LED's line and starts the thread.
    public static func open(
        _ settings: LEDLineSettings, consumer: String = "jarvis-voice",
        onError: @escaping @Sendable (GPIOError) -> Void = { _ in }
    ) throws(GPIOError) -> LEDDriver {
        let output = try GPIOOutputLine(
            chip: settings.chip, line: settings.line, activeLow: settings.activeLow,
            consumer: consumer)
        return try LEDDriver(output: output, onError: onError)
    }

    /// The pattern being shown.
    public var pattern: LEDPattern {
        core.state.withLock { $0.pattern }
    }

    public func show(_ pattern: LEDPattern) {
        let changed = core.state.withLock { s in
            guard s.pattern != pattern else { return false }
            s.pattern = pattern
            s.since = .now
            return true
        }
        if changed { thread.wake() }
    }

    /// Stops the thread and turns the LED off. Idempotent.
    public func stop() {
        thread.stop()
        let written = core.state.withLock { s in
            defer { s.pattern = .off }
            return s.written
        }
        if written != false { core.write(false) }
    }

    deinit {
        stop()
    }
}
