import FoundationEssentials

/// Why a server frame could not be turned into an event. Never fatal for the session.
public struct RealtimeDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Not JSON, or JSON without a string `type`.
        case invalidJSON
        /// A known event type whose required fields are missing or have the wrong type.
        case invalidEvent(type: String)
    }

    public var kind: Kind
    public var detail: String

    public var description: String {
        switch kind {
        case .invalidJSON: "Realtime server sent a frame that is not a JSON event (\(detail))"
        case .invalidEvent(let type): "Realtime server sent a malformed \(type) event (\(detail))"
        }
    }
}

/// Decodes server frames leniently and counts what it could not use.
public struct ServerEventDecoder: Sendable {
    public private(set) var unknownEventCounts: [String: Int] = [:]
    public private(set) var malformedCount = 0
    public private(set) var decodedCount = 0

    public init() {}

    public var unknownCount: Int { unknownEventCounts.values.reduce(0, +) }

    public mutating func decode(_ text: String) -> Result<ServerEvent, RealtimeDecodingError> {
        decode(Data(text.utf8))
    }

    public mutating func decode(_ data: Data) -> Result<ServerEvent, RealtimeDecodingError> {
        let decoder = JSONDecoder()
        do {
            let event = try decoder.decode(ServerEvent.self, from: data)
            decodedCount += 1
            if case .unknown(let type) = event { unknownEventCounts[type, default: 0] += 1 }
            return .success(event)
        } catch {
            malformedCount += 1
            let type = (try? decoder.decode(TypeProbe.self, from: data))?.type
            let detail = Self.summary(of: error)
            if let type {
                return .failure(RealtimeDecodingError(kind: .invalidEvent(type: type), detail: detail))
            }
            return .failure(RealtimeDecodingError(kind: .invalidJSON, detail: detail))
        }
    }

    private struct TypeProbe: Decodable { let type: String }

    private static func summary(of error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "missing field \(key.stringValue)"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "wrong type at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        case DecodingError.dataCorrupted(let context):
            context.codingPath.isEmpty ? "invalid JSON" : "invalid value at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        default: "\(error)"
        }
    }
}
