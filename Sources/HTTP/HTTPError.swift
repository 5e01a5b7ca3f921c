/// A failed HTTP exchange. Names the curl function and code and the URL's host only: never the full
/// URL, headers or body (they may carry tokens).
public struct HTTPError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// DNS lookup failed.
        case couldNotResolve
        /// Nothing accepted the connection (refused, unreachable).
        case couldNotConnect
        /// The connect timeout expired.
        case connectTimeout
        /// No byte arrived for longer than the inactivity timeout.
        case inactivityTimeout
        /// The total cap expired.
        case totalTimeout
        /// The caller cancelled (task cancellation or `HTTPResponse.cancel()`).
        case cancelled
        case tooManyRedirects
        case tls
        /// The connection broke or the peer closed it mid-response.
        case connectionLost
        /// The request could not be set up (bad URL, bad header, setopt failure).
        case invalidRequest
        /// The client was shut down.
        case clientShutDown
        case other
    }

    public let kind: Kind
    /// The host part of the URL (or "(no host)").
    public let host: String
    /// The C call that failed, e.g. `curl_multi_perform` or `curl_easy_setopt(CURLOPT_URL)`.
    public let function: String
    /// The CURLcode, when curl reported one.
    public let code: Int32?
    /// curl's message or ours.
    public let detail: String

    public init(kind: Kind, host: String, function: String, code: Int32? = nil, detail: String) {
        self.kind = kind
        self.host = host
        self.function = function
        self.code = code
        self.detail = detail
    }

    /// The library's words: the curl call and code (a debug line).
    public var description: String {
        let codeText = code.map { " (CURLcode \($0))" } ?? ""
        return "HTTP request to \(host) failed in \(function)\(codeText): \(detail)"
    }

    /// The owner's words for what happened (journal lines, what doctor and the assistant report).
    public var plainDescription: String {
        switch kind {
        case .couldNotResolve: "cannot find \(host) (the name does not resolve)"
        case .couldNotConnect: "nothing answers at \(host) (connection refused or unreachable)"
        case .connectTimeout: "\(host) did not accept the connection in time"
        case .inactivityTimeout, .totalTimeout: "\(host) took too long: \(detail)"
        case .cancelled: "the request to \(host) was cancelled"
        case .tooManyRedirects: "\(host) redirects too many times"
        case .tls: "the secure connection to \(host) failed: \(detail)"
        case .connectionLost: "the connection to \(host) broke off"
        case .invalidRequest: "the request to \(host) could not be made: \(detail)"
        case .clientShutDown: "the service is shutting down"
        case .other: "the request to \(host) failed: \(detail)"
        }
    }
}
