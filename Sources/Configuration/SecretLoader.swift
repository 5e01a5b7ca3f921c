/// Loads the OpenAI API key and the Jarvis token, in this order:
/// - OpenAI: `[realtime] api_key_file`, else `$OPENAI_API_KEY`, else
///   `$CREDENTIALS_DIRECTORY/openai-api-key` (systemd `LoadCredential=`).
/// - Jarvis: `[jarvis] token_file`, else `$CREDENTIALS_DIRECTORY/jarvis-token`, else none.
///
/// A configured file that does not exist falls through to the next source; one that exists but is
/// accessible by group or others, unreadable, empty or spans several lines is an error. Values are
/// trimmed of surrounding whitespace.
public struct SecretLoader: Sendable {
    public static let openAIEnvironmentVariable = "OPENAI_API_KEY"
    public static let openAICredential = "openai-api-key"
    public static let jarvisCredential = "jarvis-token"
    static let maxBytes = 65_536

    private let environment: [String: String]

    /// `environment` defaults to the process environment; tests pass their own.
    public init(environment: [String: String]? = nil) {
        self.environment = environment ?? FileSystemCalls.environment()
    }

    public func openAIKey(_ config: RealtimeConfig) throws(SecretError) -> Secret {
        if let secret = try loadFile(config.apiKeyFile) { return secret }
        let variable = Self.openAIEnvironmentVariable
        if let value = environment[variable], !value.isEmpty {
            return try validated(value, source: "environment variable \(variable)")
        }
        if let secret = try loadCredential(Self.openAICredential) { return secret }
        let file = config.apiKeyFile.isEmpty ? "" : "\(config.apiKeyFile) (not found), "
        throw SecretError(.notFound, "no OpenAI API key: put it in \(file)$\(variable), or the systemd credential \"\(Self.openAICredential)\"")
    }

    /// nil when neither the token file nor the credential exists (Jarvis without auth).
    public func jarvisToken(_ config: JarvisConfig) throws(SecretError) -> Secret? {
        if let secret = try loadFile(config.tokenFile) { return secret }
        return try loadCredential(Self.jarvisCredential)
    }

    private func loadCredential(_ name: String) throws(SecretError) -> Secret? {
        guard let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty else { return nil }
        let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
        return try loadFile(path, source: "systemd credential \(name)", checkPermissions: false)
    }

    /// systemd manages the credentials directory's permissions itself; configured files are ours to check.
    private func loadFile(_ path: String, source: String? = nil, checkPermissions: Bool = true) throws(SecretError) -> Secret? {
        guard !path.isEmpty else { return nil }
        let contents: FileSystemCalls.Contents
        do {
            contents = try FileSystemCalls.readFile(path, maxBytes: Self.maxBytes, regularOnly: true)
        } catch {
            if error.kind == .notFound { return nil }
            throw SecretError(.unreadable, "cannot read secret file \(path): \(error.reason)")
        }
        if checkPermissions && contents.permissions & 0o077 != 0 {
            let mode = "0" + String(contents.permissions, radix: 8)
            throw SecretError(.permissions, "secret file \(path) is accessible by group or others (mode \(mode)); run: chmod 600 \(path)")
        }
        return try validated(String(decoding: contents.bytes, as: UTF8.self), source: source ?? "file \(path)")
    }

    private func validated(_ raw: String, source: String) throws(SecretError) -> Secret {
        let trimmed = Self.trimmed(raw)
        guard !trimmed.isEmpty else {
            throw SecretError(.empty, "secret from \(source) is empty")
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }) else {
            throw SecretError(.malformed, "secret from \(source) contains whitespace or several lines; it must be a single token")
        }
        return Secret(trimmed, source: source)
    }

    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
