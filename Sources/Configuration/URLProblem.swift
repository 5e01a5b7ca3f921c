import Basics

/// check-config's words for a URL the client's own rules (`WebURL.Rules`) refuse: the decision is the
/// parser's, the same one the client connects with.
enum URLProblem {
    /// nil when `url` parses under `rules`; `expected` names what it must be ("a ws:// or wss:// URL"),
    /// `credentialsLiveIn` the key a secret belongs in when the rules refuse user info in the URL.
    static func describe(_ url: String, rules: WebURL.Rules, expected: String, credentialsLiveIn: String? = nil) -> String? {
        do {
            _ = try WebURL(parsing: url, rules: rules)
            return nil
        } catch {
            switch error.reason {
            case .cleartextToRemoteHost:
                let plain = rules.schemes.filter { !$0.usesTLS }.map { "\($0.rawValue)://" }.joined(separator: " or ")
                let secure = rules.schemes.filter(\.usesTLS).map { "\($0.rawValue)://" }.joined(separator: " or ")
                return "may use \(plain) only for loopback hosts (use \(secure)), got \"\(error.url)\""
            case .userInfo:
                return "must not contain a user name or password" + (credentialsLiveIn.map { " (the secret comes from \($0))" } ?? "")
            case .badHost, .badPort, .tooLong: return "must be \(expected): \(error)"
            default: return "must be \(expected), got \"\(error.url)\""
            }
        }
    }
}
