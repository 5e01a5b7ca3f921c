/// A response whose head has arrived and whose body streams in.
public struct HTTPResponse: Sendable {
    public let head: HTTPResponseHead
    /// The body as byte chunks (whatever arrived since the last read, joined). Read it once.
    public let body: HTTPBody
    private let handle: TransferHandle

    init(head: HTTPResponseHead, handle: TransferHandle) {
        self.head = head
        self.handle = handle
        self.body = HTTPBody(handle: handle)
    }

    public var status: Int { head.status }

    /// Aborts the transfer and closes the connection; a pending read throws `.cancelled`.
    public func cancel() {
        handle.cancel()
    }

    /// Reads the whole body, failing with `HTTPError` kind `.other` beyond `limit` bytes.
    public func collect(upTo limit: Int = 1 << 20) async throws -> [UInt8] {
        var all: [UInt8] = []
        for try await chunk in body {
            all.append(contentsOf: chunk)
            if all.count > limit {
                cancel()
                throw HTTPError(kind: .other, host: handle.state.host, function: "collect", detail: "body larger than \(limit) bytes")
            }
        }
        return all
    }
}

/// The streamed body. Back-pressure: at most the request's `maxBufferedBytes` wait in memory;
/// beyond that the transfer pauses until the consumer reads.
public struct HTTPBody: AsyncSequence, Sendable {
    public typealias Element = [UInt8]
    fileprivate let handle: TransferHandle

    public struct AsyncIterator: AsyncIteratorProtocol {
        fileprivate let handle: TransferHandle

        public mutating func next() async throws -> [UInt8]? {
            try await handle.next()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(handle: handle)
    }
}
