/// Loads the OpenAI API key and the Jarvis token, in this order:
/// - OpenAI: `[realtime] api_key_file` if set, else the systemd credential `openai-api-key`, else
///   `$OPENAI_API_KEY`.
/// - Jarvis: `[jarvis] token_file` if set, else the systemd credential `jarvis-token`, else none.
///
/// A configured file that does not exist falls through to the next source. One that the service
/// cannot read (permission denied, not a regular file) also falls through when another source has
/// the secret: the result carries that problem in `skipped`, for one log line; with no other
/// source it is the error. A file that is readable but accessible by group or others, empty, or
/// spans several lines is always an error (the owner must fix it). Values are trimmed of
/// surrounding whitespace.
public struct SecretLoader: Sendable {
    public static let openAIEnvironmentVariable = "OPENAI_API_KEY"
    public static let openAICredential = "openai-api-key"
    public static let jarvisCredential = "jarvis-token"
    /// Where systemd (252) finds a credential named by a bare `LoadCredential=NAME`: the system's
    /// own credentials, then the credential stores (systemd.exec(5)).
    public static let systemdCredentialSearchPath = ["/run/credentials/@system", "/etc/credstore", "/run/credstore", "/usr/lib/credstore"]
    static let maxBytes = 65_536

    private let environment: [String: String]
    private let credentialDirectories: [String]
    private let serviceAccess: ServiceFileAccess?

    /// - environment: defaults to the process environment; tests pass their own.
    /// - credentialDirectories: where credentials are looked for, first match wins; default
    ///   `$CREDENTIALS_DIRECTORY` (set by systemd for the service).
    /// - serviceAccess: for a process that is not the service (`doctor` run by root): configured
    ///   files the service user could not read count as unreadable, as they would in the service.
    public init(
        environment: [String: String]? = nil, credentialDirectories: [String]? = nil,
        serviceAccess: ServiceFileAccess? = nil
    ) {
        let environment = environment ?? FileSystemCalls.environment()
        self.environment = environment
        if let credentialDirectories {
            self.credentialDirectories = credentialDirectories
        } else if let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty {
            self.credentialDirectories = [directory]
        } else {
            self.credentialDirectories = []
        }
        self.serviceAccess = serviceAccess
    }

    public func openAIKey(_ config: RealtimeConfig) throws(SecretError) -> LoadedSecret {
        let (fromFile, skipped) = try loadConfiguredFile(config.apiKeyFile, fallback: "the credential \"\(Self.openAICredential)\"")
        if let fromFile { return LoadedSecret(fromFile) }
        if let secret = try loadCredential(Self.openAICredential) { return LoadedSecret(secret, skipped: skipped) }
        let variable = Self.openAIEnvironmentVariable
        if let value = environment[variable], !value.isEmpty {
            return LoadedSecret(try validated(value, source: .environment(variable: variable)), skipped: skipped)
        }
        if let skipped { throw skipped }
        let file = config.apiKeyFile.isEmpty ? "" : "\(config.apiKeyFile) (not found), "
        throw SecretError(
            .notFound,
            "no OpenAI API key: put it in \(file)the systemd credential \"\(Self.openAICredential)\" (/etc/credstore/\(Self.openAICredential)) or $\(variable)"
        )
    }

    /// nil when neither the token file nor the credential exists (Jarvis without auth).
    public func jarvisToken(_ config: JarvisConfig) throws(SecretError) -> LoadedSecret? {
        let (fromFile, skipped) = try loadConfiguredFile(config.tokenFile, fallback: "the credential \"\(Self.jarvisCredential)\"")
        if let fromFile { return LoadedSecret(fromFile) }
        if let secret = try loadCredential(Self.jarvisCredential) { return LoadedSecret(secret, skipped: skipped) }
        if let skipped { throw skipped }
        return nil
    }

    /// The secret from a configured file; nil when none is configured or it does not exist. An
    /// unreadable file is returned as `skipped` (the caller decides whether another source saves it).
    private func loadConfiguredFile(_ path: String, fallback: String) throws(SecretError) -> (Secret?, skipped: SecretError?) {
        guard !path.isEmpty else { return (nil, nil) }
        if let denial = serviceAccess?.denial(path) {
            return (
                nil,
                SecretError(
                    .unreadable,
                    "the service user \(denial.user) cannot read secret file \(path): \(denial.reason); make it readable by that user only, or leave the setting empty and use \(fallback)"
                )
            )
        }
        do {
            return (try loadFile(path, source: .file(path: path), checkPermissions: true, fallback: fallback), nil)
        } catch {
            guard error.code == .unreadable else { throw error }
            return (nil, error)
        }
    }

    private func loadCredential(_ name: String) throws(SecretError) -> Secret? {
        for directory in credentialDirectories {
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            if let secret = try loadFile(path, source: .credential(name: name), checkPermissions: false) { return secret }
        }
        return nil
    }

    /// systemd manages the credentials directory's permissions itself; configured files are ours to check.
    /// `fallback`: for a configured file, the credential that could replace it (named in the hint
    /// when the service may not read the file).
    private func loadFile(_ path: String, source: Secret.Source, checkPermissions: Bool, fallback: String? = nil) throws(SecretError) -> Secret? {
        let contents: FileSystemCalls.Contents
        do {
            contents = try FileSystemCalls.readFile(path, maxBytes: Self.maxBytes, regularOnly: true)
        } catch {
            if error.kind == .notFound { return nil }
            let hint =
                error.kind == .accessDenied
                ? fallback.map { " (the service user must be able to read it; or leave the setting empty and use \($0))" } ?? ""
                : ""
            throw SecretError(.unreadable, "cannot read secret file \(path): \(error.reason)\(hint)")
        }
        if checkPermissions && contents.permissions & 0o077 != 0 {
            let mode = "0" + String(contents.permissions, radix: 8)
            throw SecretError(.permissions, "secret file \(path) is accessible by group or others (mode \(mode)); run: chmod 600 \(path)")
        }
        return try validated(String(decoding: contents.bytes, as: UTF8.self), source: source)
    }

    private func validated(_ raw: String, source: Secret.Source) throws(SecretError) -> Secret {
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

/// A loaded secret, and the configured file that was passed over because the service cannot
/// read it (log `skipped` once: the owner should fix or remove that setting).
public struct LoadedSecret: Sendable {
    public let secret: Secret
    public let skipped: SecretError?

    init(_ secret: Secret, skipped: SecretError? = nil) {
        self.secret = secret
        self.skipped = skipped
    }
}
