/// Reads typed values from one `[section]`, recording a `ConfigProblem` for every wrong type,
/// out-of-range value and unknown key instead of stopping. Missing keys take their defaults.
struct ConfigSectionReader {
    let name: String
    let table: TOMLTable
    private(set) var problems: [ConfigProblem] = []
    private(set) var known: Set<String> = []
    /// The file's commented-out section headers (`CommentedHeader`).
    let commentedHeaders: [CommentedHeader]

    init(name: String, table: TOMLTable, commentedHeaders: [CommentedHeader] = []) {
        self.name = name
        self.table = table
        self.commentedHeaders = commentedHeaders
    }

    /// The line of `key` if set, else of the section header; nil when neither is in the file.
    func line(of key: String) -> Int? {
        table[key]?.line ?? (table.line > 0 ? table.line : nil)
    }

    func isSet(_ key: String) -> Bool { table[key] != nil }

    mutating func problem(_ key: String, _ message: String) {
        problems.append(ConfigProblem(line: line(of: key), message: "[\(name)] \(key) \(message)"))
    }

    private mutating func value(_ key: String) -> TOMLValue? {
        known.insert(key)
        return table[key]?.value
    }

    private mutating func typeProblem(_ key: String, expected: String, got value: TOMLValue) {
        problem(key, "must be \(expected), got \(value.typeName)")
    }

    mutating func string(_ key: String, default defaultValue: String, allowEmpty: Bool = false) -> String {
        guard let value = value(key) else { return defaultValue }
        guard case .string(let string) = value else {
            typeProblem(key, expected: "a string", got: value)
            return defaultValue
        }
        if string.isEmpty && !allowEmpty {
            problem(key, "must not be empty")
            return defaultValue
        }
        return string
    }

    /// An absolute filesystem path; "" allowed only where it means "not used".
    mutating func path(_ key: String, default defaultValue: String, allowEmpty: Bool = false) -> String {
        let path = string(key, default: defaultValue, allowEmpty: allowEmpty)
        if !path.isEmpty && !path.hasPrefix("/") {
            problem(key, "must be an absolute path, got \"\(path)\"")
            return defaultValue
        }
        return path
    }

    mutating func integer(_ key: String, default defaultValue: Int, in range: ClosedRange<Int>) -> Int {
        optionalInteger(key, in: range) ?? defaultValue
    }

    mutating func optionalInteger(_ key: String, in range: ClosedRange<Int>) -> Int? {
        guard let value = value(key) else { return nil }
        guard case .integer(let integer) = value else {
            typeProblem(key, expected: "an integer", got: value)
            return nil
        }
        guard integer >= Int64(range.lowerBound) && integer <= Int64(range.upperBound) else {
            problem(key, "must be between \(range.lowerBound) and \(range.upperBound), got \(integer)")
            return nil
        }
        return Int(integer)
    }

    /// A number; integers are accepted (`volume = 1`).
    mutating func number(_ key: String, default defaultValue: Double, in range: ClosedRange<Double>) -> Double {
        guard let value = value(key) else { return defaultValue }
        let number: Double
        switch value {
        case .integer(let integer): number = Double(integer)
        case .float(let float): number = float
        default:
            typeProblem(key, expected: "a number", got: value)
            return defaultValue
        }
        guard range.contains(number) else {
            problem(key, "must be between \(Self.format(range.lowerBound)) and \(Self.format(range.upperBound)), got \(Self.format(number))")
            return defaultValue
        }
        return number
    }

    mutating func boolean(_ key: String, default defaultValue: Bool) -> Bool {
        guard let value = value(key) else { return defaultValue }
        guard case .boolean(let boolean) = value else {
            typeProblem(key, expected: "true or false", got: value)
            return defaultValue
        }
        return boolean
    }

    mutating func choice<Choice: RawRepresentable<String> & CaseIterable>(
        _ key: String, default defaultValue: Choice
    ) -> Choice {
        let allowed = Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        guard let value = value(key) else { return defaultValue }
        guard case .string(let string) = value else {
            typeProblem(key, expected: "one of \(allowed)", got: value)
            return defaultValue
        }
        guard let choice = Choice(rawValue: string) else {
            problem(key, "must be one of \(allowed), got \"\(string)\"")
            return defaultValue
        }
        return choice
    }

    /// Every key that no reader asked for is a problem (typos must not pass silently).
    mutating func reportUnknownKeys() {
        for entry in table.entries where !known.contains(entry.key) {
            let under = commentedHeaders.last { $0.line > table.line && $0.line < entry.line }.map {
                "; it is under \"# [\($0.name)]\" (line \($0.line)), which is commented out: uncomment that header too"
            }
            let hint = under ?? NearMiss.closest(to: entry.key, among: known).map { "; did you mean \"\($0)\"?" } ?? ""
            problems.append(ConfigProblem(line: entry.line, message: "unknown key \"\(entry.key)\" in [\(name)]\(hint)"))
        }
    }

    /// Integral values without a trailing ".0" (`-20`, `0.5`).
    static func format(_ number: Double) -> String {
        if number.isFinite && number == number.rounded() && abs(number) < 1e15 {
            return String(Int64(number))
        }
        return "\(number)"
    }
}
