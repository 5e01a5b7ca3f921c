/// Why the control socket could not be opened. Logged at start-up; the service exits.
public enum ControlServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A live process answers on the socket path.
    case alreadyRunning(path: String)
    /// The path exists and is not a socket: never removed for safety.
    case notASocket(path: String)
    case system(function: String, path: String, code: Int32, detail: String)
    case bind(path: String, detail: String)

    public var description: String {
        switch self {
        case .alreadyRunning(let path):
            "another jarvis-voice is running (its control socket \(path) answers); stop it first"
        case .notASocket(let path):
            "control socket path \(path) exists and is not a socket; remove it or change [control] socket"
        case .system(let function, let path, _, let detail):
            "control socket \(path): \(function) failed: \(detail)"
        case .bind(let path, let detail):
            "control socket \(path): cannot listen: \(detail)"
        }
    }
}

/// Why `ControlClient` got no answer.
public enum ControlClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing listens at the path (no file, or a stale socket).
    case notRunning(path: String)
    case permissionDenied(path: String)
    case timedOut(String)
    case io(String)
    case protocolError(String)

    public var description: String {
        switch self {
        case .notRunning(let path):
            "jarvis-voice is not running (no control socket at \(path))"
        case .permissionDenied(let path):
            "permission denied on the control socket \(path) (is this user in the service's group?)"
        case .timedOut(let what):
            "no answer from jarvis-voice (timed out \(what))"
        case .io(let detail):
            detail
        case .protocolError(let detail):
            detail
        }
    }
}
