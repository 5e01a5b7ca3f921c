/// A decoder or encoder failed. `function` names the C call (or our own parsing step), so a journal
/// line says exactly what broke, e.g. `mp3 decoder: mpg123_feed failed (code -1): out of memory`.
public struct CodecError: Error, CustomStringConvertible, Equatable, Sendable {
    public enum Kind: Sendable, Equatable {
        /// The C library reported an error.
        case library
        /// The stream is not what it claims to be (bad header, missing OpusHead, ...).
        case invalidStream
        /// Valid, but something we do not play (an Opus channel mapping we cannot decode, ...).
        case unsupported
    }

    public var kind: Kind
    /// "mp3", "opus" or "ogg".
    public var codec: String
    public var function: String
    public var code: Int32
    public var message: String

    public init(kind: Kind, codec: String, function: String, code: Int32 = 0, message: String) {
        self.kind = kind
        self.codec = codec
        self.function = function
        self.code = code
        self.message = message
    }

    public var description: String {
        switch kind {
        case .library: "\(codec) decoder: \(function) failed (code \(code)): \(message)"
        case .invalidStream: "\(codec) stream is invalid (\(function)): \(message)"
        case .unsupported: "\(codec) stream is not supported (\(function)): \(message)"
        }
    }
}
