import Glibc

/// Runs blocking code (socket clients, polls, a paced sound device's blocking writes) on a thread of its
/// own, so it never occupies one of the few cooperative threads (two on a 2-core machine) that every
/// other suite running beside it needs.
public func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let work = Unmanaged.passRetained(ThreadBody { continuation.resume(with: Result { try body() }) })
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { context in
                Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            }, work.toOpaque())
        if created == 0 {
            pthread_detach(thread)
        } else {
            work.takeRetainedValue().run()
        }
    }
}

private final class ThreadBody: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
