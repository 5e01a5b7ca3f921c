/// Why a Snapcast connection cannot go on: the server sent something this client cannot frame or read, or
/// did not answer a request in time. Each ends the connection (`SnapcastEffect.reconnect`).
public enum SnapcastProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A header announced more than `SnapcastFrameDecoder.maximumMessageSize` payload bytes.
    case messageTooLarge(type: UInt16, size: UInt32)
    /// A fixed-size field (`needed` bytes) does not fit in what is left of the message (`available`).
    case truncated(type: UInt16, needed: Int, available: Int)
    /// A string's or blob's u32 length runs past the end of its message.
    case lengthExceedsMessage(type: UInt16, length: UInt32, available: Int)
    /// The ServerSettings text is not a JSON object.
    case settingsNotJSON
    /// A ServerSettings key is missing.
    case settingsKeyMissing(String)
    /// A ServerSettings key has the wrong type or is out of range (volume outside 0...100).
    case settingsKeyMistyped(String)
    /// A Hello or Time request went unanswered for the reply timeout (2 s, as snapclient).
    case noReply(to: SnapcastMessageType, id: UInt16)

    public var description: String {
        switch self {
        case .messageTooLarge(let type, let size): "message of type \(type) announces \(size) bytes (limit 1000000)"
        case .truncated(let type, let needed, let available):
            "message of type \(type) ends early: a field needs \(needed) bytes, \(available) left"
        case .lengthExceedsMessage(let type, let length, let available):
            "message of type \(type) has a length of \(length) with \(available) bytes left"
        case .settingsNotJSON: "ServerSettings is not a JSON object"
        case .settingsKeyMissing(let key): "ServerSettings lacks \"\(key)\""
        case .settingsKeyMistyped(let key): "ServerSettings has a bad \"\(key)\""
        case .noReply(let type, let id): "no reply to \(type) request \(id) within the timeout"
        }
    }
}
