import CCurlShim
import Glibc
import Synchronization

/// An async HTTP client over libcurl: one worker thread drives a curl multi handle; responses
/// stream to the caller with bounded buffering. Cancelling the awaiting task, calling
/// `HTTPResponse.cancel()`, or dropping the response aborts the transfer and closes its connection.
public final class HTTPClient: Sendable {
    private let worker: CurlWorker
    private let thread: Mutex<pthread_t?>
    private let nextID = Atomic<Int>(1)

    /// Starts the worker thread (named `threadName`, at most 15 bytes).
    public init(threadName: String = "http") throws(HTTPError) {
        let worker = try CurlWorker()
        self.worker = worker
        var handle = pthread_t()
        let name = String(threadName.prefix(15))
        let body = Unmanaged.passRetained(
            WorkerBody {
                cshim_http_set_thread_name(name)
                worker.run()
            })
        let result = pthread_create(
            &handle, nil,
            { context in
                let body = Unmanaged<WorkerBody>.fromOpaque(context!).takeRetainedValue()
                body.run()
                return nil
            }, body.toOpaque())
        guard result == 0 else {
            body.release()
            throw HTTPError(
                kind: .other, host: "(no host)", function: "pthread_create", code: result,
                detail: String(cString: strerror(result)))
        }
        thread = Mutex(handle)
    }

    deinit {
        shutdown()
    }

    /// Sends the request and returns once the response head (status, headers) has arrived.
    /// Throws `HTTPError` (kind `.cancelled` when the task is cancelled).
    public func execute(_ request: HTTPRequest) async throws -> HTTPResponse {
        let state = TransferState(
            id: nextID.wrappingAdd(1, ordering: .relaxed).oldValue, host: request.host,
            maxBufferedBytes: request.maxBufferedBytes)
        let handle = TransferHandle(state: state, worker: worker)
        guard worker.submit(.add(request, state)) else {
            throw HTTPError(kind: .clientShutDown, host: request.host, function: "curl_multi_wakeup", detail: "the HTTP client is shut down")
        }
        let head = try await withTaskCancellationHandler {
            try await state.awaitHead()
        } onCancel: {
            handle.cancel()
        }
        return HTTPResponse(head: head, handle: handle)
    }

    /// Aborts all transfers and stops the worker thread. Idempotent.
    public func shutdown() {
        guard
            let handle = thread.withLock({ thread -> pthread_t? in
                defer { thread = nil }
                return thread
            })
        else { return }
        worker.submit(.shutdown)
        pthread_join(handle, nil)
    }
}

private final class WorkerBody {
    let run: () -> Void
    init(run: @escaping () -> Void) { self.run = run }
}

/// Keeps a transfer alive while anyone holds its response; the last holder going away cancels it.
final class TransferHandle: Sendable {
    let state: TransferState
    private let worker: CurlWorker

    init(state: TransferState, worker: CurlWorker) {
        self.state = state
        self.worker = worker
    }

    deinit {
        if !state.isFinished { worker.submit(.cancel(state.id)) }
    }

    func cancel() {
        worker.submit(.cancel(state.id))
    }

    func next() async throws -> [UInt8]? {
        var resumeNeeded = false
        let bytes = try await withTaskCancellationHandler {
            try await state.nextChunk(resumeNeeded: &resumeNeeded)
        } onCancel: {
            self.cancel()
        }
        if resumeNeeded { worker.submit(.resume(state.id)) }
        return bytes
    }
}
