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

    public var description: String {
        let codeText = code.map { " (CURLcode \($0))" } ?? ""
        return "HTTP request to \(host) failed in \(function)\(codeText): \(detail)"
    }
}
