import Snapcast

/// Why a call to the snapserver's control port failed, in words an owner reads in `ctl` or the journal.
public enum SnapcastControlClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No TCP connection (refused, no route, name not found); the reason as NIO gave it.
    case unreachable(server: String, reason: String)
    /// No answer within the request's timeout.
    case timedOut(server: String)
    /// The server closed the connection before it answered.
    case closed(server: String)
    /// The server answered something unusable, or refused the request.
    case control(SnapcastControlError)

    public var description: String {
        switch self {
        case .unreachable(let server, let reason):
            "cannot reach the snapserver's control port at \(server) (\(reason)); is control_port right?"
        case .timedOut(let server): "the snapserver's control port at \(server) did not answer in time"
        case .closed(let server): "the snapserver's control port at \(server) closed the connection without answering"
        case .control(let error): "\(error)"
        }
    }
}
