/// A credential (API key, Bearer token). Its description, debug description and mirror are
/// redacted, so interpolating or dumping it never leaks the value; read it with `unredacted`
/// only where it is put on the wire.
public struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Where a secret came from; its description is safe to log: `file /etc/jarvis-voice/openai.key`,
    /// `environment variable OPENAI_API_KEY`, `systemd credential openai-api-key`.
    public enum Source: Sendable, Equatable, CustomStringConvertible {
        case file(path: String)
        case environment(variable: String)
        case credential(name: String)

        public var description: String {
            switch self {
            case .file(let path): "file \(path)"
            case .environment(let variable): "environment variable \(variable)"
            case .credential(let name): "systemd credential \(name)"
            }
        }
    }

    public let source: Source
    private let value: String

    public init(_ value: String, source: Source) {
        self.value = value
        self.source = source
    }

    public var unredacted: String { value }

    public var description: String { "<redacted secret from \(source)>" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["source": source.description]) }
}
