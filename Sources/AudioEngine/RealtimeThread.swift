import CPosixShim
import Glibc
import Synchronization

/// Why a realtime thread could not be created at all.
public struct RealtimeThreadError: Error, CustomStringConvertible, Sendable {
    public let name: String
    public let code: Int32
    public var description: String { "pthread_create(\"\(name)\") failed: \(String(cString: strerror(code)))" }
}

/// Our own named pthread for a period loop (`rt:capture`, `rt:playback`).
///
/// It asks for SCHED_FIFO at `fifoPriority` when the thread is created; if the system refuses
/// (no CAP_SYS_NICE / RLIMIT_RTPRIO), it runs with normal scheduling and `schedulingNotice` says so,
/// for the caller to log. `join()` waits for the body to return (the body watches its own stop flag).
public final class RealtimeThread: Sendable {
    public let name: String
    /// nil when SCHED_FIFO was granted (or not asked for); otherwise a sentence for the log.
    public let schedulingNotice: String?
    private let thread: pthread_t
    private let joined = AtomicFlag()

    /// Starts `body` on a new thread named `name` (at most 15 bytes are kept by the kernel).
    /// `fifoPriority` nil means normal scheduling without trying.
    public init(name: String, fifoPriority: Int32?, body: @escaping @Sendable () -> Void) throws(RealtimeThreadError) {
        self.name = name
        let context = Unmanaged.passRetained(ThreadBody(name: name, body: body)).toOpaque()
        var notice: String?
        var tid = pthread_t()
        var rc: Int32 = EPERM
        if let priority = fifoPriority {
            rc = Self.create(&tid, context, fifoPriority: priority)
            if rc != 0 {
                notice =
                    "\(name): SCHED_FIFO priority \(priority) not granted (\(String(cString: strerror(rc)))); "
                    + "running with normal scheduling (grant CAP_SYS_NICE or LimitRTPRIO= for realtime audio)"
            }
        }
        if rc != 0 { rc = Self.create(&tid, context, fifoPriority: nil) }
        guard rc == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            throw RealtimeThreadError(name: name, code: rc)
        }
        thread = tid
        schedulingNotice = notice
    }

    deinit { join() }

    /// Waits for the body to return. Safe to call more than once.
    public func join() {
        guard joined.set() else { return }
        pthread_join(thread, nil)
    }

    private static func create(_ tid: inout pthread_t, _ context: UnsafeMutableRawPointer, fifoPriority: Int32?) -> Int32 {
        var attr = pthread_attr_t()
        pthread_attr_init(&attr)
        defer { pthread_attr_destroy(&attr) }
        if let fifoPriority {
            pthread_attr_setinheritsched(&attr, Int32(PTHREAD_EXPLICIT_SCHED))
            pthread_attr_setschedpolicy(&attr, SCHED_FIFO)
            var param = sched_param()
            param.sched_priority = fifoPriority
            pthread_attr_setschedparam(&attr, &param)
        }
        return pthread_create(
            &tid, &attr,
            { raw in
                let body = Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue()
                _ = cshim_thread_set_name(body.name)
                body.body()
                return nil
            }, context)
    }
}

private final class ThreadBody {
    let name: String
    let body: @Sendable () -> Void
    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }
}

/// A one-shot flag: `set()` returns true only for the first caller.
final class AtomicFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() -> Bool { !value.exchange(true, ordering: .acquiringAndReleasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}
