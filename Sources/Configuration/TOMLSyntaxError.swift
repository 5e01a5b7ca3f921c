/// A TOML syntax error: the 1-based line and a message for the person editing the file.
public struct TOMLSyntaxError: Error, Equatable, CustomStringConvertible {
    public var line: Int
    public var message: String

    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }

    public var description: String { "line \(line): \(message)" }
}
