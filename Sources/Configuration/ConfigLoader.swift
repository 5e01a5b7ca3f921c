/// Reads, parses and validates a configuration file in one call.
public enum ConfigLoader {
    public static let defaultPath = "/etc/jarvis-voice/config.toml"
    /// Larger files are refused; a real config is a few KiB.
    static let maxFileBytes = 1 << 20

    /// Who reads the file: the service needs its required keys; the offline audio commands do not.
    public enum Use: Sendable {
        /// `run`, `check-config`, `doctor`, a reload: `[jarvis] url` must be set.
        case service
        /// `dsp`, `audio-check`: only the audio sections matter.
        case audioOnly
    }

    /// The configuration at `path`, or every problem found in it (file-level ones have no line).
    public static func load(path: String, for use: Use = .service) throws(ConfigError) -> JarvisVoiceConfig {
        try loadReportingRenames(path: path, for: use).config
    }

    /// As `load(path:for:)`, with a warning for each renamed or dropped key the file still uses
    /// (`RenamedKey`): what `check-config` prints and `run` and a reload log.
    public static func loadReportingRenames(
        path: String, for use: Use = .service,
        renames: [RenamedKey] = RenamedKey.table
    ) throws(ConfigError) -> (config: JarvisVoiceConfig, warnings: [ConfigProblem]) {
        let bytes: [UInt8]
        do {
            bytes = try FileSystemCalls.readFile(path, maxBytes: maxFileBytes).bytes
        } catch {
            throw ConfigError(path: path, problems: [ConfigProblem(line: nil, message: "cannot read file: \(error.reason)")])
        }
        let decoded = decodeReportingRenames(bytes: bytes, for: use, renames: renames)
        guard decoded.problems.isEmpty else { throw ConfigError(path: path, problems: decoded.problems) }
        return (decoded.config, decoded.warnings)
    }

    /// The line `[section] key` is set on in the file at `path`, or nil when it is not set (or the file does
    /// not parse): where a finding about a loaded value points the owner.
    public static func line(of key: String, in section: String, path: String) -> Int? {
        guard let bytes = try? FileSystemCalls.readFile(path, maxBytes: maxFileBytes).bytes,
            let table = try? TOMLParser.parse(bytes: bytes),
            case .table(let values)? = table[section]?.value
        else { return nil }
        return values[key]?.line
    }

    /// Parses and validates TOML text. A syntax error is reported alone (nothing after it can be
    /// trusted); otherwise all validation problems are reported. `config` is usable only when
    /// `problems` is empty.
    public static func decode(_ text: String, for use: Use = .service) -> (config: JarvisVoiceConfig, problems: [ConfigProblem]) {
        decode(bytes: Array(text.utf8), for: use)
    }

    /// As `decode(_:)`, for a file's bytes: bytes that are not UTF-8 are a syntax error with their line.
    public static func decode(bytes: [UInt8], for use: Use = .service) -> (config: JarvisVoiceConfig, problems: [ConfigProblem]) {
        let decoded = decodeReportingRenames(bytes: bytes, for: use)
        return (decoded.config, decoded.problems)
    }

    /// As `decode(bytes:for:)`, with the warnings about renamed keys (`RenamedKey`).
    public static func decodeReportingRenames(bytes: [UInt8], for use: Use = .service, renames: [RenamedKey] = RenamedKey.table)
        -> (config: JarvisVoiceConfig, problems: [ConfigProblem], warnings: [ConfigProblem])
    {
        let parsed: TOMLTable
        do {
            parsed = try TOMLParser.parse(bytes: bytes)
        } catch {
            return (JarvisVoiceConfig(), [ConfigProblem(line: error.line, message: "syntax error: \(error.message)")], [])
        }
        let (table, warnings) = RenamedKey.apply(renames, to: parsed)
        var problems: [ConfigProblem] = []
        var readKeys: Set<String> = []
        let config = JarvisVoiceConfig(toml: table, problems: &problems, readKeys: &readKeys, commentedHeaders: CommentedHeader.find(in: bytes))
        if use == .service { problems = requiredProblems(in: table) + problems }
        return (config, problems, warnings)
    }

    /// The keys without a default. `[jarvis] url` has none: the owner's words go only where the owner wrote.
    static func requiredProblems(in table: TOMLTable) -> [ConfigProblem] {
        let jarvis = table["jarvis"]
        if case .table(let section)? = jarvis?.value, section["url"] != nil { return [] }
        return [
            ConfigProblem(
                line: jarvis?.line,
                message: "[jarvis] url is required: the address of your Jarvis "
                    + "(term-llm serve), e.g. url = \"http://192.168.1.20:8081/ui\"")
        ]
    }
}
