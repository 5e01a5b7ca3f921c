/// The 26-byte little-endian header in front of every message:
/// `u16 type, u16 id, u16 refersTo, i32 sent.sec, i32 sent.usec, i32 received.sec, i32 received.usec, u32 size`.
/// Both times are on the sender's or receiver's CLOCK_MONOTONIC, kept here as nanoseconds.
public struct SnapcastHeader: Sendable, Hashable {
    public static let byteCount = 26

    /// The raw type: unknown values are kept so the decoder can skip the message by `size`.
    public var typeCode: UInt16
    public var id: UInt16
    /// The request id this message answers (0 when it answers none).
    public var refersTo: UInt16
    /// When the sender serialised it, on the sender's monotonic clock.
    public var sentNanoseconds: Int64
    /// When the receiver read it, on the receiver's monotonic clock (the decoder fills it in).
    public var receivedNanoseconds: Int64
    /// Payload bytes after the header.
    public var size: UInt32

    public init(
        type: SnapcastMessageType, id: UInt16 = 0, refersTo: UInt16 = 0, sentNanoseconds: Int64 = 0, receivedNanoseconds: Int64 = 0,
        size: UInt32 = 0
    ) {
        self.init(
            typeCode: type.rawValue, id: id, refersTo: refersTo, sentNanoseconds: sentNanoseconds, receivedNanoseconds: receivedNanoseconds,
            size: size)
    }

    public init(typeCode: UInt16, id: UInt16, refersTo: UInt16, sentNanoseconds: Int64, receivedNanoseconds: Int64, size: UInt32) {
        self.typeCode = typeCode
        self.id = id
        self.refersTo = refersTo
        self.sentNanoseconds = sentNanoseconds
        self.receivedNanoseconds = receivedNanoseconds
        self.size = size
    }

    /// nil for a type this protocol version does not define.
    public var type: SnapcastMessageType? { SnapcastMessageType(rawValue: typeCode) }

    /// Reads the header from the first 26 bytes of `bytes`; nil when fewer are there.
    public init?(parsing bytes: ArraySlice<UInt8>) {
        var reader = SnapcastByteReader(bytes)
        guard let typeCode = reader.u16(), let id = reader.u16(), let refersTo = reader.u16(), let sent = reader.timeval(),
            let received = reader.timeval(), let size = reader.u32()
        else { return nil }
        self.init(typeCode: typeCode, id: id, refersTo: refersTo, sentNanoseconds: sent, receivedNanoseconds: received, size: size)
    }

    /// Appends the 26 header bytes to `bytes`.
    public func write(to bytes: inout [UInt8]) {
        bytes.appendLittleEndian(typeCode)
        bytes.appendLittleEndian(id)
        bytes.appendLittleEndian(refersTo)
        bytes.appendTimeval(nanoseconds: sentNanoseconds)
        bytes.appendTimeval(nanoseconds: receivedNanoseconds)
        bytes.appendLittleEndian(size)
    }
}
