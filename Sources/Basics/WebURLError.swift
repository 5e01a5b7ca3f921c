/// Why a URL was refused, naming the URL shortened, and the schemes the client accepts.
public struct WebURLError: Error, CustomStringConvertible, Equatable, Sendable {
    public enum Reason: Sendable, Equatable {
        case empty
        case tooLong(Int)
        case invalidCharacters
        case notAbsolute
        case scheme(String)
        case userInfo
        case badHost
        case badPort
        /// `http` or `ws` to a host that is not this machine, under rules that require TLS off loopback.
        case cleartextToRemoteHost
    }

    /// The offending URL, shortened for messages; user info is left out.
    public var url: String
    public var reason: Reason
    /// What the client accepts.
    public var schemes: [WebURL.Scheme]

    public init(url: String, reason: Reason, schemes: [WebURL.Scheme] = [.http, .https]) {
        let shown = Self.withoutUserInfo(url)
        self.url = shown.count > 80 ? String(shown.prefix(77)) + "..." : shown
        self.reason = reason
        self.schemes = schemes
    }

    private var schemeList: String { schemes.map(\.rawValue).joined(separator: " and ") }

    public var description: String {
        switch reason {
        case .empty: "no URL given"
        case .tooLong(let limit): "URL is longer than \(limit) bytes"
        case .invalidCharacters: "URL \"\(url)\" contains spaces or control characters"
        case .notAbsolute: "\"\(url)\" is not an absolute \(schemes.map(\.rawValue).joined(separator: " or ")) URL"
        case .scheme(let scheme): "URL scheme \"\(scheme)\" is not allowed (only \(schemeList)): \(url)"
        case .userInfo: "URL \"\(url)\" must not contain a user name or password"
        case .badHost: "URL \"\(url)\" has no valid host"
        case .badPort: "URL \"\(url)\" has an invalid port"
        case .cleartextToRemoteHost:
            "URL \"\(url)\" may use \(schemes.filter { !$0.usesTLS }.map(\.rawValue).joined(separator: " or ")):// only for loopback hosts"
        }
    }

    /// `scheme://user:pw@host/...` → `scheme://host/...`, so secrets never reach a message.
    public static func withoutUserInfo(_ url: String) -> String {
        guard let start = url.firstRange(of: "://")?.upperBound else { return url }
        let authorityEnd = url[start...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
        guard let at = url[start..<authorityEnd].lastIndex(of: "@") else { return url }
        return String(url[..<start]) + url[url.index(after: at)...]
    }
}
