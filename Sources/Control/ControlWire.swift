import Basics
import FoundationEssentials

/// The newline-delimited JSON of the control socket: one request line, one response line, close.
/// Request: `{"argument":"0.4","command":"volume"}` (`argument` omitted or null for bare verbs).
/// Keys are written sorted, so lines are byte-for-byte deterministic.
public enum ControlWire {
    /// Longest request or response line accepted (bytes, newline excluded).
    public static let maxLineBytes = 64 * 1024

    struct Request: Codable {
        var command: String
        var argument: String?
    }

    /// The request line for `command`, newline included.
    public static func encodeRequest(_ command: ControlCommand) -> [UInt8] {
        line(Request(command: command.verb, argument: command.argument))
    }

    /// Parses a request line (without its newline).
    public static func decodeRequest(_ bytes: some Collection<UInt8>) throws(ControlWireError) -> ControlCommand {
        let request: Request
        do {
            request = try JSONDecoder().decode(Request.self, from: Data(bytes))
        } catch {
            throw .malformedRequest
        }
        do {
            return try ControlCommand(verb: request.command, argument: request.argument)
        } catch {
            throw .invalidCommand(error)
        }
    }

    private struct Success<Result: Encodable>: Encodable {
        var ok = true
        var result: Result
    }

    private struct Message: Codable {
        var message: String
    }

    private struct Failure: Encodable {
        var ok = false
        var error: String
    }

    /// The response line for `response`, newline included.
    public static func encodeResponse(_ response: ControlResponse) -> [UInt8] {
        switch response {
        case .status(let status): line(Success(result: status))
        case .done(let message): line(Success(result: Message(message: message)))
        case .failed(let error): line(Failure(error: error))
        }
    }

    /// A response as a client sees it: success with the result object, or the service's error.
    public enum Reply: Sendable, Equatable {
        case ok(JSONValue)
        case failed(String)

        /// `result.message` of a `done` reply.
        public var message: String? {
            if case .ok(.object(let object)) = self, case .string(let text)? = object["message"] { return text }
            return nil
        }
    }

    private struct WireReply: Decodable {
        var ok: Bool
        var result: JSONValue?
        var error: String?
    }

    public static func decodeReply(_ bytes: some Collection<UInt8>) throws(ControlWireError) -> Reply {
        guard let reply = try? JSONDecoder().decode(WireReply.self, from: Data(bytes)) else {
            throw .malformedResponse
        }
        if reply.ok {
            guard let result = reply.result else { throw .malformedResponse }
            return .ok(result)
        }
        return .failed(reply.error ?? "the service reported an error without a message")
    }

    private static func line(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding these plain structs cannot fail (no non-finite numbers: volume is validated).
        var bytes = (try? encoder.encode(value)).map { Array($0) } ?? Array(#"{"ok":false,"error":"internal encoding error"}"#.utf8)
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }
}

public enum ControlWireError: Error, Sendable, Equatable, CustomStringConvertible {
    case malformedRequest
    case invalidCommand(ControlCommandError)
    case malformedResponse

    public var description: String {
        switch self {
        case .malformedRequest:
            "malformed request: expected one JSON line {\"command\": \"...\", \"argument\": \"...\"}"
        case .invalidCommand(let error):
            error.description
        case .malformedResponse:
            "malformed response from the service (not {\"ok\": ..., \"result\"/\"error\": ...})"
        }
    }
}
