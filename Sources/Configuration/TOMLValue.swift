/// A parsed TOML value. Dates and times are not part of this configuration's vocabulary and are
/// rejected by the parser with a line number.
public enum TOMLValue: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case boolean(Bool)
    case array([TOMLValue])
    case table(TOMLTable)

    /// The TOML type name used in messages ("must be an integer, not a string").
    public var typeName: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a float"
        case .boolean: "a boolean"
        case .array: "an array"
        case .table: "a table"
        }
    }
}

/// A TOML table that keeps its keys in file order and the line where each key was written.
public struct TOMLTable: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var key: String
        public var value: TOMLValue
        /// 1-based line of the key (for implicitly created tables: the line that created them).
        public var line: Int
    }

    /// 1-based line of the `[header]` or of the first key that created this table; 0 for the root.
    public var line: Int
    public private(set) var entries: [Entry] = []
    /// Key → index in `entries`, so a table with many keys is built in linear time.
    private var positions: [String: Int] = [:]

    public init(line: Int = 0) {
        self.line = line
    }

    public var keys: [String] { entries.map(\.key) }

    public subscript(key: String) -> Entry? {
        positions[key].map { entries[$0] }
    }

    func index(of key: String) -> Int? {
        positions[key]
    }

    mutating func append(_ entry: Entry) {
        positions[entry.key] = entries.count
        entries.append(entry)
    }

    mutating func replaceValue(at index: Int, with value: TOMLValue) {
        entries[index].value = value
    }
}
