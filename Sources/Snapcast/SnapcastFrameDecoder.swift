/// Cuts the byte stream from a snapserver into messages: append what the socket read, then pull whole
/// messages until `next` returns nil. Bounded (no message above 1 MB is buffered for), linear in its input
/// (consumed bytes are dropped in amortised O(1)), and no input traps. A framing error is final: the stream
/// cannot be trusted after it, so every later `next` throws it again until `reset()`.
public struct SnapcastFrameDecoder: Sendable {
    /// `msg::max_size` in snapcast: the client treats a larger message as an error.
    public static let maximumMessageSize: UInt32 = 1_000_000

    private var buffer: [UInt8] = []
    /// Start of the unread bytes in `buffer`.
    private var readIndex = 0
    private var failure: SnapcastProtocolError?

    public init() {}

    /// Bytes appended but not yet returned as messages.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    public mutating func append(_ bytes: some Sequence<UInt8>) {
        guard failure == nil else { return }
        // Dropping the consumed prefix only once it is at least half the buffer keeps the copying linear.
        if readIndex > 0, readIndex * 2 >= buffer.count {
            buffer.removeFirst(readIndex)
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole message, stamped as received at `receivedAt` (local monotonic ns); nil when more bytes are needed.
    public mutating func next(receivedAt: Int64) throws(SnapcastProtocolError) -> SnapcastFrame? {
        if let failure { throw failure }
        let available = buffer.count - readIndex
        guard available >= SnapcastHeader.byteCount,
            var header = SnapcastHeader(parsing: buffer[readIndex..<(readIndex + SnapcastHeader.byteCount)])
        else { return nil }
        guard header.size <= Self.maximumMessageSize else {
            return try fail(.messageTooLarge(type: header.typeCode, size: header.size))
        }
        let total = SnapcastHeader.byteCount + Int(header.size)
        guard available >= total else { return nil }
        let payload = buffer[(readIndex + SnapcastHeader.byteCount)..<(readIndex + total)]
        readIndex += total
        header.receivedNanoseconds = receivedAt
        do throws(SnapcastProtocolError) {
            return SnapcastFrame(header: header, message: try SnapcastPayloadParser.message(typeCode: header.typeCode, payload: payload))
        } catch {
            return try fail(error)
        }
    }

    /// Forgets everything buffered and any failure: for a new connection.
    public mutating func reset() {
        buffer.removeAll(keepingCapacity: true)
        readIndex = 0
        failure = nil
    }

    private mutating func fail(_ error: SnapcastProtocolError) throws(SnapcastProtocolError) -> SnapcastFrame? {
        failure = error
        buffer = []
        readIndex = 0
        throw error
    }
}
