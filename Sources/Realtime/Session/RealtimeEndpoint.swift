import Basics

/// The parsed `realtime.url` plus `?model=`: what the WebSocket connects to. The URL is parsed under
/// `WebURL.Rules.realtime`, the rules `check-config` validates the same key with.
public struct RealtimeEndpoint: Sendable, Equatable, CustomStringConvertible {
    public var url: WebURL
    /// Path and query sent in the upgrade request, e.g. `/v1/realtime?model=gpt-realtime`.
    public var requestURI: String

    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var url: String
        public var problem: String
        public var description: String { "realtime.url \"\(url)\": \(problem)" }
    }

    /// `url` is `wss://host[:port]/path[?query]`, or `ws://` to a loopback host only (IPv6 literals in brackets).
    public init(url text: String, model: String) throws(ParseError) {
        do {
            url = try WebURL(parsing: text, rules: .realtime)
        } catch {
            throw ParseError(url: error.url, problem: error.description)
        }
        guard !model.isEmpty, model.allSatisfy({ $0.isLetter || $0.isNumber || "-._".contains($0) }) else {
            throw ParseError(url: url.description, problem: "invalid model name \"\(model)\"")
        }
        requestURI = url.pathAndQuery + (url.pathAndQuery.contains("?") ? "&" : "?") + "model=" + model
    }

    public var useTLS: Bool { url.scheme.usesTLS }
    /// The host to connect to (an IPv6 literal without brackets).
    public var host: String { url.address }
    public var port: Int { url.effectivePort }
    /// The upgrade request's `Host` header.
    public var hostHeader: String { url.hostHeader }
    /// The TLS server name (SNI), nil for an IP address (SNI carries names only).
    public var serverName: String? { url.isIPAddress ? nil : url.address }

    public var description: String { "\(url.scheme.rawValue)://\(url.host):\(port)\(requestURI)" }
}
