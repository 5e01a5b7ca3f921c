/// An absolute http(s) or ws(s) URL. The one URL parser: `check-config` and every client (the Realtime
/// endpoint, the Jarvis client, media streams, playlists and feeds) parse with it, each under its
/// `Rules`, so validation and connecting can never disagree.
///
/// Bounded (`maxLength`), linear in the input, no allocation beyond the parts it returns.
public struct WebURL: Sendable, Hashable, CustomStringConvertible {
    public enum Scheme: String, Sendable, Hashable, CaseIterable {
        case http, https, ws, wss

        public var usesTLS: Bool { self == .https || self == .wss }
        public var defaultPort: Int { usesTLS ? 443 : 80 }
    }

    /// What a client accepts. Each client's rules are defined here, once, so `check-config` applies the
    /// same ones as the client that connects.
    public struct Rules: Sendable, Hashable {
        /// Accepted schemes, in the order error messages name them.
        public var schemes: [Scheme]
        /// Cleartext schemes (`http`, `ws`) only to a loopback host (test stand-ins), never over the network.
        public var cleartextOnlyToLoopback: Bool
        /// `user:password@` is kept (curl sends it); otherwise it is an error.
        public var allowsUserInfo: Bool

        public init(schemes: [Scheme], cleartextOnlyToLoopback: Bool = false, allowsUserInfo: Bool = false) {
            self.schemes = schemes
            self.cleartextOnlyToLoopback = cleartextOnlyToLoopback
            self.allowsUserInfo = allowsUserInfo
        }

        /// Media streams, podcast feeds and enclosures, playlists, the station catalog: http and https
        /// only (a URL from the model or a feed must never make the appliance read `file:` or talk `ftp:`);
        /// user info is kept for private feeds.
        public static let media = Rules(schemes: [.http, .https], allowsUserInfo: true)
        /// The Jarvis (term-llm) base URL: http or https; credentials belong in `token_file`, not the URL.
        public static let jarvis = Rules(schemes: [.http, .https])
        /// `realtime.url`: wss, or ws to a loopback host; the API key comes from `api_key_file`.
        public static let realtime = Rules(schemes: [.wss, .ws], cleartextOnlyToLoopback: true)
        /// Any of the four schemes, user info kept (reading a host out of a URL for a log line).
        public static let any = Rules(schemes: Scheme.allCases, allowsUserInfo: true)
    }

    public var scheme: Scheme
    public var userInfo: String?
    /// Lower-cased. An IPv6 literal keeps its brackets, as written in a URL (`[::1]`); see `address`.
    public var host: String
    /// nil: the scheme's default.
    public var port: Int?
    /// Path plus query, at least "/". The fragment is dropped.
    public var pathAndQuery: String

    /// Parses `text` (surrounding white space ignored) under `rules`.
    public init(parsing text: String, rules: Rules = .media, maxLength: Int = 2_048) throws(WebURLError) {
        let trimmed = text.trimmed()
        func fail(_ reason: WebURLError.Reason) -> WebURLError { WebURLError(url: text, reason: reason, schemes: rules.schemes) }
        guard !trimmed.isEmpty else { throw fail(.empty) }
        guard trimmed.utf8.count <= maxLength else { throw fail(.tooLong(maxLength)) }
        guard trimmed.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else { throw fail(.invalidCharacters) }
        guard let colon = trimmed.firstIndex(of: ":"), colon != trimmed.startIndex else { throw fail(.notAbsolute) }
        let schemeText = trimmed[..<colon].lowercased()
        guard let scheme = Scheme(rawValue: schemeText), rules.schemes.contains(scheme) else {
            let looksLikeScheme = schemeText.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
            throw fail(looksLikeScheme && trimmed[colon...].hasPrefix("://") ? .scheme(schemeText) : .notAbsolute)
        }
        var rest = trimmed[trimmed.index(after: colon)...]
        guard rest.hasPrefix("//") else { throw fail(.notAbsolute) }
        rest = rest.dropFirst(2)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        var path = String(rest[authorityEnd...])
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        var userInfo: String?
        if let at = authority.lastIndex(of: "@") {
            guard rules.allowsUserInfo else { throw fail(.userInfo) }
            userInfo = String(authority[..<at])
            authority = authority[authority.index(after: at)...]
        }
        let host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]"),
                Self.isIPv6Literal(authority[authority.index(after: authority.startIndex)..<close])
            else { throw fail(.badHost) }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { throw fail(.badHost) }
        } else if let portColon = authority.firstIndex(of: ":") {
            host = authority[..<portColon]
            portText = authority[authority.index(after: portColon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty, host.hasPrefix("[") || host.unicodeScalars.allSatisfy(Self.isRegisteredNameScalar) else {
            throw fail(.badHost)
        }
        var port: Int?
        if let portText, !portText.isEmpty {  // RFC 3986 §3.2.3: an empty port is the default
            guard portText.utf8.count <= 5, portText.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                let value = Int(portText), (1...65_535).contains(value)
            else { throw fail(.badPort) }
            port = value
        }
        self.scheme = scheme
        self.userInfo = userInfo
        self.host = host.lowercased()
        self.port = port
        self.pathAndQuery = path
        if rules.cleartextOnlyToLoopback && !scheme.usesTLS && !isLoopback { throw fail(.cleartextToRemoteHost) }
    }

    /// The host to connect to: without the brackets of an IPv6 literal.
    public var address: String {
        host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
    }

    /// `port`, or the scheme's default.
    public var effectivePort: Int { port ?? scheme.defaultPort }

    /// The `Host` header: the host, with the port only when it is not the scheme's default.
    public var hostHeader: String {
        effectivePort == scheme.defaultPort ? host : "\(host):\(effectivePort)"
    }

    /// Whether the host is this machine: `localhost` (and `*.localhost`), 127.0.0.0/8, `[::1]`.
    public var isLoopback: Bool {
        let name = address
        if name == "localhost" || name.hasSuffix(".localhost") || name == "::1" || name == "0:0:0:0:0:0:0:1" { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy(Self.isDecimalOctet)
    }

    /// Whether the host is an IP address (an IPv6 literal or dotted IPv4) rather than a name.
    public var isIPAddress: Bool {
        if host.hasPrefix("[") { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets.allSatisfy(Self.isDecimalOctet)
    }

    /// The URL to fetch (user info kept: curl needs it).
    public var absoluteString: String {
        let user = userInfo.map { $0 + "@" } ?? ""
        let portPart = port.map { ":\($0)" } ?? ""
        return "\(scheme.rawValue)://\(user)\(host)\(portPart)\(pathAndQuery)"
    }

    /// For logs and `status`: credentials and the query (tokens live there) are left out.
    public var description: String {
        let portPart = port.map { ":\($0)" } ?? ""
        let path = pathAndQuery.split(separator: "?", maxSplits: 1).first.map(String.init) ?? "/"
        let query = pathAndQuery.contains("?") ? "?…" : ""
        return "\(scheme.rawValue)://\(host)\(portPart)\(path)\(query)"
    }

    /// The path without the query.
    public var path: String {
        pathAndQuery.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? "/"
    }

    /// This URL with `suffix` appended to its path (one `/` between them) and the query dropped:
    /// `http://h/ui/` + `v1/models` → `http://h/ui/v1/models`.
    public func appendingPath(_ suffix: String) -> WebURL {
        var copy = self
        var base = path
        while base.hasSuffix("/") { base.removeLast() }
        var tail = Substring(suffix)
        while tail.hasPrefix("/") { tail = tail.dropFirst() }
        copy.pathAndQuery = base + "/" + tail
        return copy
    }

    /// RFC 3986 reg-name characters (unreserved, sub-delims, `%` of pct-encoding) and non-ASCII (IDN).
    static func isRegisteredNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        if !scalar.isASCII { return true }
        let c = Character(scalar)
        return c.isLetter || c.isNumber || "-._~%!$&'()*+,;=".contains(c)
    }

    static func isDecimalOctet(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.count <= 3 && text.utf8.allSatisfy { (0x30...0x39).contains($0) } && Int(text)! <= 255
    }

    /// RFC 4291 §2.2 text forms: eight groups of 1-4 hex digits, one `::` for a run of zeros, an optional
    /// dotted IPv4 tail (two groups). Zone identifiers are not accepted.
    static func isIPv6Literal(_ text: Substring) -> Bool {
        guard (2...45).contains(text.utf8.count), text.contains(":"), !text.contains(":::") else { return false }
        let compressed = text.ranges(of: "::").count
        guard compressed <= 1 else { return false }
        if text.hasPrefix(":") && !text.hasPrefix("::") { return false }
        if text.hasSuffix(":") && !text.hasSuffix("::") { return false }
        var parts = text.split(separator: ":", omittingEmptySubsequences: true)
        var groups = 0
        if let last = parts.last, last.contains(".") {
            let octets = last.split(separator: ".", omittingEmptySubsequences: false)
            guard octets.count == 4, octets.allSatisfy(isDecimalOctet), !text.hasSuffix("::") else { return false }
            parts.removeLast()
            groups = 2
        }
        for part in parts {
            guard (1...4).contains(part.utf8.count), part.allSatisfy(\.isHexDigit) else { return false }
            groups += 1
        }
        return compressed == 1 ? groups < 8 : groups == 8
    }
}
