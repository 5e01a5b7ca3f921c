public import Logging

/// A swift-log handler writing one line per message to stderr with the sd-daemon(3) priority
/// prefix journald understands (`<7>` debug/trace, `<6>` info, `<5>` notice, `<4>` warning,
/// `<3>` error, `<2>` critical): `<6>label: message key=value key2="a b"`.
/// Newlines in messages and values are escaped so a message is always exactly one journal entry.
public struct JournaldLogHandler: LogHandler {
    public typealias Output = @Sendable (_ line: String) -> Void

    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let output: Output

    /// `output` defaults to `StandardErrorWriter.shared`; tests capture lines instead.
    public init(
        label: String, logLevel: Logger.Level = .info,
        metadataProvider: Logger.MetadataProvider? = nil, output: Output? = nil
    ) {
        self.label = label
        self.logLevel = logLevel
        self.metadataProvider = metadataProvider
        self.output = output ?? { StandardErrorWriter.shared.write(line: $0) }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let explicit = event.metadata { merged.merge(explicit) { _, new in new } }
        if let error = event.error { merged["error"] = .string(String(describing: error)) }
        output(Self.format(level: event.level, label: label, message: event.message.description, metadata: merged))
    }

    /// The syslog priority journald reads from a `<N>` prefix.
    public static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// `<N>label: message k=v ...` with keys sorted, so output is deterministic.
    public static func format(level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) -> String {
        var line = "<\(priority(level))>\(label): \(escaped(message))"
        for key in metadata.keys.sorted() {
            line += " \(key)=\(quotedIfNeeded(render(metadata[key]!)))"
        }
        return line
    }

    /// Arrays as `[a,b]`, dictionaries as `{k=v,...}` (sorted), without Swift's string quotes.
    private static func render(_ value: Logger.MetadataValue) -> String {
        switch value {
        case .string(let string): string
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): "[" + values.map(render).joined(separator: ",") + "]"
        case .dictionary(let dictionary):
            "{" + dictionary.keys.sorted().map { "\($0)=\(render(dictionary[$0]!))" }.joined(separator: ",") + "}"
        }
    }

    /// Line breaks written as `\n`/`\r` (one journal line per event); inside a quoted value also quotes,
    /// backslashes and tabs.
    private static func escaped(_ text: String, quoted: Bool = false) -> String {
        guard quoted || text.contains(where: { $0 == "\n" || $0 == "\r" }) else { return text }
        var out = ""
        for character in text {
            switch character {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\r\n": out += "\\r\\n"
            case "\"" where quoted: out += "\\\""
            case "\\" where quoted: out += "\\\\"
            case "\t" where quoted: out += "\\t"
            default: out.append(character)
            }
        }
        return out
    }

    private static func quotedIfNeeded(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.contains { $0 == " " || $0 == "\"" || $0 == "=" || $0 == "\n" || $0 == "\r" || $0 == "\t" }
        return needsQuotes ? "\"" + escaped(value, quoted: true) + "\"" : value
    }
}
