/// The parsed `realtime.url` plus `?model=`: what the WebSocket connects to.
public struct RealtimeEndpoint: Sendable, Equatable, CustomStringConvertible {
    public var useTLS: Bool
    public var host: String
    public var port: Int
    /// Path and query sent in the upgrade request, e.g. `/v1/realtime?model=gpt-realtime`.
    public var requestURI: String

    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var url: String
        public var problem: String
        public var description: String { "realtime.url \"\(url)\": \(problem)" }
    }

    /// `url` is `ws://` or `wss://host[:port]/path[?query]`; plain `ws://` is accepted for loopback hosts only.
    public init(url: String, model: String) throws(ParseError) {
        let rest: Substring
        if url.hasPrefix("wss://") {
            useTLS = true
            rest = url.dropFirst(6)
        } else if url.hasPrefix("ws://") {
            useTLS = false
            rest = url.dropFirst(5)
        } else {
            throw ParseError(url: url, problem: "must start with wss:// (or ws:// for a loopback test server)")
        }
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var path = String(rest[authorityEnd...])
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            guard let parsed = Int(authority[authority.index(after: colon)...]), (1...65535).contains(parsed) else {
                throw ParseError(url: url, problem: "invalid port")
            }
            port = parsed
        } else {
            host = String(authority)
            port = useTLS ? 443 : 80
        }
        guard !host.isEmpty else { throw ParseError(url: url, problem: "missing host") }
        if !useTLS && !Self.isLoopback(host) {
            throw ParseError(url: url, problem: "ws:// (no TLS) is allowed only for 127.0.0.1, ::1 or localhost")
        }
        guard !model.isEmpty, model.allSatisfy({ $0.isLetter || $0.isNumber || "-._".contains($0) }) else {
            throw ParseError(url: url, problem: "invalid model name \"\(model)\"")
        }
        requestURI = path + (path.contains("?") ? "&" : "?") + "model=" + model
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    public var description: String { "\(useTLS ? "wss" : "ws")://\(host):\(port)\(requestURI)" }
}
