import Glibc
import Synchronization

/// Runs the tasks of servers inside the test process (the stand-ins, a control server under test) on
/// one dedicated thread instead of the cooperative pool.
///
/// `swift test` runs every suite in parallel; on a 2-core machine the cooperative pool has two
/// threads, and synchronous tests (paced ALSA loops, CPU-heavy property walks) can hold both for
/// tens of seconds. A server scheduled there would stall for that long and make a client's
/// timeout fire in tests that are meant to succeed.
public final class StandInExecutor: TaskExecutor, @unchecked Sendable {
    public static let shared = StandInExecutor()

    private let jobs = Mutex<[UnownedJob]>([])
    // Counts queued jobs; a pointer because sem_t must not move.
    private let available: UnsafeMutablePointer<sem_t>

    private init() {
        available = .allocate(capacity: 1)
        sem_init(available, 0, 0)
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let result = pthread_create(
            &thread, nil,
            { context in
                let executor = Unmanaged<StandInExecutor>.fromOpaque(context!).takeRetainedValue()
                executor.run()
                return nil
            }, context)
        precondition(result == 0, "pthread_create for the stand-in executor failed: \(result)")
        pthread_detach(thread)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        jobs.withLock { $0.append(unowned) }
        sem_post(available)
    }

    private func run() {
        while true {
            while sem_wait(available) != 0 {}  // EINTR
            let job = jobs.withLock { $0.removeFirst() }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
