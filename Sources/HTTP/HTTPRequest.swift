import Basics

/// One header line. Names compare case-insensitively (see `HTTPResponseHead.value(for:)`).
public struct HTTPHeader: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// What to send, and how long to wait for it.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [HTTPHeader]
    public var body: [UInt8]?
    /// TCP (and TLS) connect budget. Default 5 s.
    public var connectTimeout: Duration
    /// Longest gap without any received byte (headers or body) before the transfer is aborted.
    /// `nil` disables it. Default 30 s. Time spent paused because the consumer is not reading does not count.
    public var inactivityTimeout: Duration?
    /// Cap on the whole exchange, from submission to the last byte. `nil`: none. Default nil.
    public var totalTimeout: Duration?
    /// Redirects followed at most; 0 disables following. Default 5.
    public var maxRedirects: Int
    /// Received bytes buffered for a slow consumer before the transfer pauses (back-pressure). Default 1 MiB.
    public var maxBufferedBytes: Int

    public init(
        method: String = "GET",
        url: String,
        headers: [HTTPHeader] = [],
        body: [UInt8]? = nil,
        connectTimeout: Duration = .seconds(5),
        inactivityTimeout: Duration? = .seconds(30),
        totalTimeout: Duration? = nil,
        maxRedirects: Int = 5,
        maxBufferedBytes: Int = 1 << 20
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.connectTimeout = connectTimeout
        self.inactivityTimeout = inactivityTimeout
        self.totalTimeout = totalTimeout
        self.maxRedirects = maxRedirects
        self.maxBufferedBytes = maxBufferedBytes
    }

    /// The URL's host (no scheme, user info, port or path): the only part of a URL errors and logs name.
    public var host: String { HTTPRequest.host(of: url) }

    /// The one URL parser (`WebURL`); a URL written without a scheme is read as http.
    static func host(of url: String) -> String {
        let parsed = (try? WebURL(parsing: url, rules: .any)) ?? (try? WebURL(parsing: "http://" + url, rules: .any))
        return parsed?.address ?? "(no host)"
    }
}

/// Status line and headers of the final response (after redirects and 1xx responses).
public struct HTTPResponseHead: Sendable, Equatable {
    public var status: Int
    public var headers: [HTTPHeader]

    public init(status: Int, headers: [HTTPHeader]) {
        self.status = status
        self.headers = headers
    }

    /// The first header with this name, compared case-insensitively.
    public func value(for name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}
