/// Just enough URL parsing to validate configured URLs (scheme, host, loopback) without Foundation.
struct URLCheck: Equatable {
    var scheme: String
    var host: String
    var port: Int?

    /// `scheme://[user@]host[:port][/path][?query]`; nil if it does not have that shape.
    init?(_ text: String) {
        guard let schemeEnd = text.firstRange(of: "://") else { return nil }
        scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0 == "+" || $0 == "-" || $0 == "." }) else { return nil }
        var authority = text[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let rest = authority[authority.index(after: close)...]
            if rest.hasPrefix(":") { portText = rest.dropFirst() } else if !rest.isEmpty { return nil }
        } else if let colon = authority.firstIndex(of: ":") {
            host = String(authority[..<colon])
            portText = authority[authority.index(after: colon)...]
        } else {
            host = String(authority)
        }
        host = host.lowercased()
        guard !host.isEmpty, !host.contains(" ") else { return nil }
        if let portText {
            guard let port = Int(portText), (1...65535).contains(port) else { return nil }
            self.port = port
        }
    }

    var isLoopback: Bool {
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}
