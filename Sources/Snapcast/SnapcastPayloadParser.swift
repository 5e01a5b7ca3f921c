/// Reads one message's payload by its type. Every length is checked against what is left of the message,
/// so a lying length is a typed error, never a read past the end.
enum SnapcastPayloadParser {
    static func message(typeCode: UInt16, payload: ArraySlice<UInt8>) throws(SnapcastProtocolError) -> SnapcastMessage {
        var fields = Fields(typeCode: typeCode, reader: SnapcastByteReader(payload))
        switch SnapcastMessageType(rawValue: typeCode) {
        case .codecHeader:
            let codec = String(decoding: try fields.sized(), as: UTF8.self)
            return .codecHeader(codec: codec, payload: Array(try fields.sized()))
        case .wireChunk:
            let timestamp = try fields.timeval()
            return .wireChunk(timestampNanoseconds: timestamp, payload: Array(try fields.sized()))
        case .serverSettings:
            return .serverSettings(try SnapcastServerSettings(jsonText: String(decoding: try fields.sized(), as: UTF8.self)))
        case .time:
            return .time(latencyNanoseconds: try fields.timeval())
        case .error:
            let code = try fields.u32()
            let message = String(decoding: try fields.sized(), as: UTF8.self)
            return .error(code: code, message: message, details: String(decoding: try fields.sized(), as: UTF8.self))
        case .hello, .clientInfo, .streamTags, nil:
            return .skipped(typeCode: typeCode)
        }
    }

    /// A reader whose failures name the message type.
    private struct Fields {
        let typeCode: UInt16
        var reader: SnapcastByteReader

        mutating func u32() throws(SnapcastProtocolError) -> UInt32 {
            guard let value = reader.u32() else { throw truncated(4) }
            return value
        }

        mutating func timeval() throws(SnapcastProtocolError) -> Int64 {
            guard let value = reader.timeval() else { throw truncated(8) }
            return value
        }

        /// A u32 length and that many bytes.
        mutating func sized() throws(SnapcastProtocolError) -> ArraySlice<UInt8> {
            let length = try u32()
            guard UInt64(length) <= UInt64(reader.remaining.count), let bytes = reader.take(Int(length)) else {
                throw .lengthExceedsMessage(type: typeCode, length: length, available: reader.remaining.count)
            }
            return bytes
        }

        private func truncated(_ needed: Int) -> SnapcastProtocolError {
            .truncated(type: typeCode, needed: needed, available: reader.remaining.count)
        }
    }
}
