/// An http(s) URL split into the parts the media code needs. Only http and https are accepted:
/// a URL from the model or a feed must never make the appliance read `file:` or talk `ftp:`.
public struct MediaURL: Sendable, Hashable, CustomStringConvertible {
    public var scheme: String   // "http" or "https", lower-cased
    public var userInfo: String?
    public var host: String
    public var port: Int?
    /// Path plus query, at least "/". The fragment is dropped.
    public var pathAndQuery: String

    public init(parsing text: String, maxLength: Int = 2_048) throws(MediaURLError) {
        let trimmed = text.trimmed()
        guard !trimmed.isEmpty else { throw MediaURLError(url: text, reason: .empty) }
        guard trimmed.utf8.count <= maxLength else { throw MediaURLError(url: text, reason: .tooLong(maxLength)) }
        guard trimmed.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else {
            throw MediaURLError(url: text, reason: .invalidCharacters)
        }
        guard let colon = trimmed.firstIndex(of: ":") else { throw MediaURLError(url: text, reason: .notAbsolute) }
        let scheme = trimmed[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw MediaURLError(url: text, reason: scheme.isEmpty ? .notAbsolute : .scheme(scheme))
        }
        var rest = trimmed[trimmed.index(after: colon)...]
        guard rest.hasPrefix("//") else { throw MediaURLError(url: text, reason: .notAbsolute) }
        rest = rest.dropFirst(2)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        var path = String(rest[authorityEnd...])
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        var userInfo: String?
        if let at = authority.lastIndex(of: "@") {
            userInfo = String(authority[..<at])
            authority = authority[authority.index(after: at)...]
        }
        var host = authority
        var port: Int?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw MediaURLError(url: text, reason: .badHost) }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { port = Int(after.dropFirst()) ?? -1 } else if !after.isEmpty { port = -1 }
        } else if let portColon = authority.lastIndex(of: ":") {
            host = authority[..<portColon]
            let digits = authority[authority.index(after: portColon)...]
            port = digits.isEmpty ? nil : (Int(digits) ?? -1)
        }
        guard !host.isEmpty else { throw MediaURLError(url: text, reason: .badHost) }
        if let port, !(1...65_535).contains(port) { throw MediaURLError(url: text, reason: .badPort) }
        self.scheme = scheme
        self.userInfo = userInfo
        self.host = host.lowercased()
        self.port = port
        self.pathAndQuery = path
    }

    /// The URL to fetch (user info kept: curl needs it).
    public var absoluteString: String {
        let user = userInfo.map { $0 + "@" } ?? ""
        let portPart = port.map { ":\($0)" } ?? ""
        return "\(scheme)://\(user)\(host)\(portPart)\(pathAndQuery)"
    }

    /// For logs and `status`: credentials and the query (tokens live there) are left out.
    public var description: String {
        let portPart = port.map { ":\($0)" } ?? ""
        let path = pathAndQuery.split(separator: "?", maxSplits: 1).first.map(String.init) ?? "/"
        let query = pathAndQuery.contains("?") ? "?…" : ""
        return "\(scheme)://\(host)\(portPart)\(path)\(query)"
    }

    /// The path's last component, lower-cased, e.g. "groovesalad.pls".
    public var lastPathComponent: String {
        let path = pathAndQuery.split(separator: "?", maxSplits: 1).first ?? ""
        return path.split(separator: "/").last.map { $0.lowercased() } ?? ""
    }

    /// Resolves a reference found in a playlist or feed against this URL per RFC 3986 §5.2: absolute,
    /// scheme-relative, absolute-path, relative-path (`../x` with dot segments removed), query-only
    /// (`?q`) and empty or fragment-only references.
    public func resolving(_ reference: String) throws(MediaURLError) -> MediaURL {
        var ref = Substring(reference.trimmed())
        if let colon = ref.firstIndex(of: ":"), !ref[..<colon].isEmpty,
           ref[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "." || $0 == "-") }),
           ref.first?.isLetter == true {
            return try MediaURL(parsing: String(ref))  // has a scheme; others (file:, ftp:) are rejected with its name
        }
        if let hash = ref.firstIndex(of: "#") { ref = ref[..<hash] }
        let portPart = port.map { ":\($0)" } ?? ""
        let authority = "\(scheme)://\(userInfo.map { $0 + "@" } ?? "")\(host)\(portPart)"
        if ref.hasPrefix("//") { return try MediaURL(parsing: scheme + ":" + ref) }
        let basePath = pathAndQuery.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? "/"
        if ref.isEmpty { return try MediaURL(parsing: authority + pathAndQuery) }
        if ref.hasPrefix("?") { return try MediaURL(parsing: authority + basePath + ref) }
        let query = ref.firstIndex(of: "?").map { String(ref[$0...]) } ?? ""
        let refPath = ref.firstIndex(of: "?").map { ref[..<$0] } ?? ref
        let merged: String
        if refPath.hasPrefix("/") {
            merged = String(refPath)
        } else {
            merged = String(basePath[...(basePath.lastIndex(of: "/") ?? basePath.startIndex)]) + refPath
        }
        return try MediaURL(parsing: authority + Self.removingDotSegments(merged) + query)
    }

    /// RFC 3986 §5.2.4 on an absolute path: `/a/b/../c/./d` → `/a/c/d`; `..` never climbs above `/`.
    static func removingDotSegments(_ path: String) -> String {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        var output: [Substring] = []
        for (offset, segment) in segments.enumerated() {
            let isLast = offset == segments.count - 1
            switch segment {
            case ".":
                if isLast { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if isLast { output.append("") }
            default:
                output.append(segment)
            }
        }
        return "/" + output.joined(separator: "/")
    }

    /// Spaces inside a URL written by hand into a feed or playlist (`/My Show 1.mp3`) percent-encoded,
    /// as browsers and feed readers do; other characters are left for `init(parsing:)` to judge.
    public static func encodingSpaces(_ text: String) -> String {
        let trimmed = text.trimmed()
        guard trimmed.contains(" ") else { return trimmed }
        return trimmed.split(separator: " ", omittingEmptySubsequences: false).joined(separator: "%20")
    }
}

public struct MediaURLError: Error, CustomStringConvertible, Equatable, Sendable {
    public enum Reason: Sendable, Equatable {
        case empty
        case tooLong(Int)
        case invalidCharacters
        case notAbsolute
        case scheme(String)
        case badHost
        case badPort
    }

    /// The offending URL, shortened for messages.
    public var url: String
    public var reason: Reason

    public init(url: String, reason: Reason) {
        self.url = url.count > 80 ? String(url.prefix(77)) + "..." : url
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .empty: "no URL given"
        case .tooLong(let limit): "URL is longer than \(limit) bytes"
        case .invalidCharacters: "URL \"\(url)\" contains spaces or control characters"
        case .notAbsolute: "\"\(url)\" is not an absolute http(s) URL"
        case .scheme(let scheme): "URL scheme \"\(scheme)\" is not allowed (only http and https): \(url)"
        case .badHost: "URL \"\(url)\" has no valid host"
        case .badPort: "URL \"\(url)\" has an invalid port"
        }
    }
}

extension StringProtocol {
    func trimmed() -> String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace || first == "\u{FEFF}" { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }
}
