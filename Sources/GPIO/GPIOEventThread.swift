import Glibc
import Synchronization

/// A small blocking thread that polls an optional line fd and a wake-up eventfd and calls `step`
/// after every wake-up; `step` says how long to wait next. `stop()` wakes it and joins it, so it
/// never hangs on a quiet line.
final class GPIOEventThread: Sendable {
    enum Wake: Sendable { case start, line, woken, timeout }
    enum Next: Sendable {
        /// Poll again, at most this long (nil: until an edge or a wake-up).
        case wait(Duration?)
        case exit
    }

    private final class Shared: Sendable {
        let wakeFD: Int32
        let stopping = Atomic<Bool>(false)
        init(wakeFD: Int32) { self.wakeFD = wakeFD }
    }

    private let shared: Shared
    private let thread: Mutex<pthread_t?>

    init(
        name: String, chip: String, lineFD: Int32,
        step: @escaping @Sendable (Wake) -> Next
    ) throws(GPIOError) {
        let shared = Shared(wakeFD: try GPIOCalls.openWakeFD(chip: chip))
        self.shared = shared
        do {
            let t = try GPIOCalls.startThread(name: name, chip: chip) {
                var next = step(.start)
                while !shared.stopping.load(ordering: .acquiring) {
                    guard case .wait(let timeout) = next else { break }
                    let ready = GPIOCalls.poll(
                        lineFD: lineFD, wakeFD: shared.wakeFD,
                        timeoutMilliseconds: timeout.map(\.pollTimeoutMilliseconds) ?? -1)
                    if shared.stopping.load(ordering: .acquiring) { break }
                    if ready.wake { GPIOCalls.drainWakeFD(shared.wakeFD) }
                    next = step(ready.line ? .line : ready.wake ? .woken : .timeout)
                }
            }
            self.thread = Mutex(t)
        } catch {
            GPIOCalls.closeFD(shared.wakeFD)
            throw error
        }
    }

    /// Makes the thread run `step(.woken)` soon.
    func wake() {
        GPIOCalls.signalWakeFD(shared.wakeFD)
    }

    /// Stops and joins the thread. Idempotent; must not be called from the thread itself.
    func stop() {
        shared.stopping.store(true, ordering: .releasing)
        GPIOCalls.signalWakeFD(shared.wakeFD)
        let t = thread.withLock { t in
            defer { t = nil }
            return t
        }
        if let t { GPIOCalls.join(t) }
    }

    deinit {
        stop()
        GPIOCalls.closeFD(shared.wakeFD)
    }
}
