import Snapcast

/// Server-to-client messages as a snapserver writes them, for feeding decoders and sessions.
enum SnapcastServerBytes {
    static func message(typeCode: UInt16, id: UInt16 = 0, refersTo: UInt16 = 0, sent: Int64 = 0, payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        SnapcastHeader(typeCode: typeCode, id: id, refersTo: refersTo, sentNanoseconds: sent, receivedNanoseconds: 0, size: UInt32(payload.count))
            .write(to: &bytes)
        return bytes + payload
    }

    static func u32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
    static func i32(_ value: Int32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
    static func sized(_ bytes: [UInt8]) -> [UInt8] { u32(UInt32(bytes.count)) + bytes }
    static func sized(_ text: String) -> [UInt8] { sized(Array(text.utf8)) }
    /// A `tv` as snapcast normalises it (usec in 0..<1e6).
    static func timeval(_ nanoseconds: Int64) -> [UInt8] {
        var seconds = nanoseconds / 1_000_000_000
        var rest = nanoseconds % 1_000_000_000
        if rest < 0 {
            seconds -= 1
            rest += 1_000_000_000
        }
        return i32(Int32(seconds)) + i32(Int32(rest / 1_000))
    }

    static func settings(_ json: String, refersTo: UInt16 = 0) -> [UInt8] {
        message(typeCode: 3, refersTo: refersTo, payload: sized(json))
    }

    static func settings(_ value: SnapcastServerSettings, refersTo: UInt16 = 0) -> [UInt8] { settings(value.jsonText, refersTo: refersTo) }

    static func codecHeader(_ codec: String, _ payload: [UInt8]) -> [UInt8] { message(typeCode: 1, payload: sized(codec) + sized(payload)) }

    static func chunk(_ timestamp: Int64, _ payload: [UInt8]) -> [UInt8] { message(typeCode: 2, payload: timeval(timestamp) + sized(payload)) }

    static func timeReply(refersTo: UInt16, latency: Int64, sent: Int64) -> [UInt8] {
        message(typeCode: 4, refersTo: refersTo, sent: sent, payload: timeval(latency))
    }

    /// The header of a message the client sent.
    static func header(of bytes: [UInt8]) -> SnapcastHeader? { SnapcastHeader(parsing: bytes[...]) }

    /// The u32-length-prefixed text of a client JSON message (Hello, ClientInfo).
    static func jsonText(of bytes: [UInt8]) -> String { String(decoding: bytes.dropFirst(SnapcastHeader.byteCount + 4), as: UTF8.self) }
}
