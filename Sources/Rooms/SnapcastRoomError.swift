/// Why this box's group could not be switched to another stream.
public enum SnapcastRoomError: Error, Sendable, Equatable, CustomStringConvertible {
    case control(SnapcastControlClientError)
    /// The server does not list this box in any group (not connected yet, or under another id).
    case notInGroup(clientID: String)
    case unknownStream(String, available: [String])

    public var description: String {
        switch self {
        case .control(let error): "\(error)"
        case .notInGroup(let id): "the snapserver has no group with this box (client id \"\(id)\") yet"
        case .unknownStream(let name, let available):
            "the snapserver has no stream \"\(name)\"; it has \(available.isEmpty ? "none" : available.joined(separator: ", "))"
        }
    }
}
