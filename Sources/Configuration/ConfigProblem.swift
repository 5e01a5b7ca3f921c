/// One problem found in a configuration file: the 1-based line it concerns and a message.
/// File-level problems (unreadable file) use line 1.
public struct ConfigProblem: Sendable, Equatable, CustomStringConvertible {
    /// nil for a problem with no line of its own (an unreadable file, a required key that is missing).
    public var line: Int?
    public var message: String

    public init(line: Int?, message: String) {
        self.line = line
        self.message = message
    }

    /// The `PATH:LINE: message` form (`PATH: message` without a line) printed by `check-config` and logged by `run`.
    /// `label`: e.g. "warning", put before the message.
    public func formatted(path: String, label: String? = nil) -> String {
        let text = label.map { "\($0): \(message)" } ?? message
        return line.map { "\(path):\($0): \(text)" } ?? "\(path): \(text)"
    }

    public var description: String { line.map { "line \($0): \(message)" } ?? message }
}

/// A configuration file that cannot be used, with every problem found in it.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var problems: [ConfigProblem]

    public init(path: String, problems: [ConfigProblem]) {
        self.path = path
        self.problems = problems
    }

    /// One `PATH:LINE: message` line per problem, in file order.
    public var lines: [String] { problems.map { $0.formatted(path: path) } }

    public var description: String { lines.joined(separator: "\n") }
}
