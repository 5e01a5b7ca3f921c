import Basics

/// One line from a snapserver's control port: the answer to a request or a notification of a change
/// (`Client.OnVolumeChanged`, `Group.OnStreamChanged`, `Stream.OnUpdate`, `Server.OnUpdate`, ...).
public enum SnapcastControlMessage: Sendable, Hashable {
    case result(id: Int, JSONValue)
    /// A JSON-RPC error; `id` is nil when the server could not read the request's.
    case error(id: Int?, code: Int, message: String)
    case notification(method: String, params: JSONValue)

    /// Reads one line (without its newline). Batches are not read: this client never sends one.
    public init(line: String) throws(SnapcastControlError) {
        guard line.utf8.count <= SnapcastControlLineBuffer.maximumLineLength else {
            throw .lineTooLong(SnapcastControlLineBuffer.maximumLineLength)
        }
        guard let json = JSONValue.parse(line), case .object = json else { throw .notJSON }
        let id = json["id"]?.numberValue.flatMap { Int(exactly: $0) }
        if let error = json["error"] {
            let code = error["code"]?.numberValue.flatMap { Int(exactly: $0) } ?? 0
            self = .error(id: id, code: code, message: error["message"]?.stringValue ?? "unknown error")
        } else if let id, let result = json["result"] {
            self = .result(id: id, result)
        } else if let method = json["method"]?.stringValue, json["id"] == nil {
            self = .notification(method: method, params: json["params"] ?? .null)
        } else {
            throw .notJSONRPC
        }
    }

    /// The result of request `id`; throws the server's error for it.
    public func result(for id: Int) throws(SnapcastControlError) -> JSONValue? {
        switch self {
        case .result(let answered, let value) where answered == id: value
        case .error(let answered, let code, let message) where answered == id || answered == nil:
            throw .server(code: code, message: message)
        default: nil
        }
    }
}
