/// Why a line from a snapserver's control port (JSON-RPC 2.0) cannot be used, or what the server said
/// went wrong.
public enum SnapcastControlError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A line ran past `SnapcastControlLineBuffer.maximumLineLength` bytes without a newline.
    case lineTooLong(Int)
    /// The line is not a JSON object.
    case notJSON
    /// A JSON object that is neither a response (`id` with `result` or `error`) nor a notification (`method`).
    case notJSONRPC
    /// The server answered with a JSON-RPC error.
    case server(code: Int, message: String)
    /// `Server.GetStatus`'s result lacks or mistypes what this reader needs (the key path).
    case malformedStatus(String)

    public var description: String {
        switch self {
        case .lineTooLong(let length): "a control line of more than \(length) bytes"
        case .notJSON: "a control line that is not a JSON object"
        case .notJSONRPC: "a control line that is neither a JSON-RPC response nor a notification"
        case .server(let code, let message): "the snapserver refused: \(message) (\(code))"
        case .malformedStatus(let path): "the server status has no usable \"\(path)\""
        }
    }
}
