import Synchronization

/// The hand-over point between the curl worker thread (producer) and the async consumer.
/// Buffering is bounded: when `maxBufferedBytes` are waiting, the producer is told to pause the
/// transfer; the consumer asks for a resume once it has drained the buffer.
final class TransferState: Sendable {
    private struct Inner {
        var head: HTTPResponseHead?
        var headWaiter: CheckedContinuation<HTTPResponseHead, any Error>?
        var chunks: [[UInt8]] = []
        var bufferedBytes = 0
        var bodyWaiter: CheckedContinuation<[UInt8]?, any Error>?
        var finished = false
        var failure: HTTPError?
        var paused = false
    }

    let id: Int
    let host: String
    private let maxBufferedBytes: Int
    private let inner = Mutex(Inner())

    init(id: Int, host: String, maxBufferedBytes: Int) {
        self.id = id
        self.host = host
        self.maxBufferedBytes = max(1, maxBufferedBytes)
    }

    var isFinished: Bool { inner.withLock { $0.finished } }

    // MARK: producer side (worker thread)

    func deliverHead(_ head: HTTPResponseHead) {
        let waiter: CheckedContinuation<HTTPResponseHead, any Error>? = inner.withLock { state in
            guard state.head == nil, !state.finished else { return nil }
            state.head = head
            defer { state.headWaiter = nil }
            return state.headWaiter
        }
        waiter?.resume(returning: head)
    }

    /// Returns false when the buffer is full: the caller must pause the transfer and not consume the bytes.
    func deliverBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        enum Action {
            case resume(CheckedContinuation<[UInt8]?, any Error>, [UInt8])
            case buffered, full
        }
        let action: Action = inner.withLock { state in
            if state.finished { return .buffered }
            if let waiter = state.bodyWaiter {
                state.bodyWaiter = nil
                return .resume(waiter, Array(bytes))
            }
            if state.bufferedBytes >= maxBufferedBytes {
                state.paused = true
                return .full
            }
            state.chunks.append(Array(bytes))
            state.bufferedBytes += bytes.count
            return .buffered
        }
        switch action {
        case .resume(let waiter, let chunk):
            waiter.resume(returning: chunk)
            return true
        case .buffered: return true
        case .full: return false
        }
    }

    /// Ends the transfer: nil for success (the body ends after what is buffered), else the error.
    func finish(_ failure: HTTPError?) {
        let (headWaiter, bodyWaiter, head):
            (CheckedContinuation<HTTPResponseHead, any Error>?, CheckedContinuation<[UInt8]?, any Error>?, HTTPResponseHead?) = inner.withLock {
                state in
                guard !state.finished else { return (nil, nil, nil) }
                state.finished = true
                state.failure = failure
                defer {
                    state.headWaiter = nil
                    state.bodyWaiter = nil
                }
                return (state.headWaiter, state.bodyWaiter, state.head)
            }
        if let headWaiter {
            if let head, failure == nil {
                headWaiter.resume(returning: head)
            } else {
                headWaiter.resume(
                    throwing: failure
                        ?? HTTPError(
                            kind: .connectionLost, host: host, function: "curl_multi_info_read", detail: "the transfer ended without a response"))
            }
        }
        if let bodyWaiter {
            if let failure { bodyWaiter.resume(throwing: failure) } else { bodyWaiter.resume(returning: nil) }
        }
    }

    // MARK: consumer side

    func awaitHead() async throws -> HTTPResponseHead {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponseHead, any Error>) in
            enum Outcome {
                case head(HTTPResponseHead)
                case failed(HTTPError)
                case wait
            }
            let outcome: Outcome = inner.withLock { state in
                if let head = state.head { return .head(head) }
                if state.finished {
                    return .failed(
                        state.failure
                            ?? HTTPError(
                                kind: .connectionLost, host: host, function: "curl_multi_info_read", detail: "the transfer ended without a response"))
                }
                state.headWaiter = continuation
                return .wait
            }
            switch outcome {
            case .head(let head): continuation.resume(returning: head)
            case .failed(let error): continuation.resume(throwing: error)
            case .wait: break
            }
        }
    }

    /// The next bytes (everything buffered, joined), or nil at the end. `resumeNeeded` is set when
    /// the transfer was paused and the buffer is now empty.
    func nextChunk(resumeNeeded: inout Bool) async throws -> [UInt8]? {
        enum Outcome {
            case bytes([UInt8], Bool)
            case end
            case failed(HTTPError)
            case wait
        }
        let immediate: Outcome = inner.withLock { state in
            if !state.chunks.isEmpty {
                let joined = state.chunks.count == 1 ? state.chunks[0] : Array(state.chunks.joined())
                state.chunks.removeAll(keepingCapacity: true)
                state.bufferedBytes = 0
                let wasPaused = state.paused
                state.paused = false
                return .bytes(joined, wasPaused)
            }
            if state.finished { return state.failure.map { .failed($0) } ?? .end }
            return .wait
        }
        switch immediate {
        case .bytes(let bytes, let wasPaused):
            resumeNeeded = wasPaused
            return bytes
        case .end: return nil
        case .failed(let error): throw error
        case .wait: break
        }
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8]?, any Error>) in
            enum Late {
                case bytes([UInt8])
                case end
                case failed(HTTPError)
                case wait
            }
            let late: Late = inner.withLock { state in
                if !state.chunks.isEmpty {
                    let joined = Array(state.chunks.joined())
                    state.chunks.removeAll(keepingCapacity: true)
                    state.bufferedBytes = 0
                    return .bytes(joined)
                }
                if state.finished { return state.failure.map { .failed($0) } ?? .end }
                state.bodyWaiter = continuation
                return .wait
            }
            switch late {
            case .bytes(let bytes): continuation.resume(returning: bytes)
            case .end: continuation.resume(returning: nil)
            case .failed(let error): continuation.resume(throwing: error)
            case .wait: break
            }
        }
    }
}
