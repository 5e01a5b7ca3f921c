extension WebURL {
    /// The path's last component, lower-cased, e.g. "groovesalad.pls".
    public var lastPathComponent: String {
        path.split(separator: "/").last.map { $0.lowercased() } ?? ""
    }

    /// Resolves a reference found in a playlist or feed against this URL per RFC 3986 §5.2: absolute,
    /// scheme-relative, absolute-path, relative-path (`../x` with dot segments removed), query-only
    /// (`?q`) and empty or fragment-only references. The result is parsed under `rules`.
    public func resolving(_ reference: String, rules: Rules = .media) throws(WebURLError) -> WebURL {
        var ref = Substring(reference.trimmed())
        if let colon = ref.firstIndex(of: ":"), !ref[..<colon].isEmpty,
            ref[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "." || $0 == "-") }),
            ref.first?.isLetter == true
        {
            return try WebURL(parsing: String(ref), rules: rules)  // has a scheme; others (file:, ftp:) are rejected with its name
        }
        if let hash = ref.firstIndex(of: "#") { ref = ref[..<hash] }
        let portPart = port.map { ":\($0)" } ?? ""
        let authority = "\(scheme.rawValue)://\(userInfo.map { $0 + "@" } ?? "")\(host)\(portPart)"
        if ref.hasPrefix("//") { return try WebURL(parsing: scheme.rawValue + ":" + ref, rules: rules) }
        let basePath = path
        if ref.isEmpty { return try WebURL(parsing: authority + pathAndQuery, rules: rules) }
        if ref.hasPrefix("?") { return try WebURL(parsing: authority + basePath + ref, rules: rules) }
        let query = ref.firstIndex(of: "?").map { String(ref[$0...]) } ?? ""
        let refPath = ref.firstIndex(of: "?").map { ref[..<$0] } ?? ref
        let merged: String
        if refPath.hasPrefix("/") {
            merged = String(refPath)
        } else {
            merged = String(basePath[...(basePath.lastIndex(of: "/") ?? basePath.startIndex)]) + refPath
        }
        return try WebURL(parsing: authority + Self.removingDotSegments(merged) + query, rules: rules)
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
