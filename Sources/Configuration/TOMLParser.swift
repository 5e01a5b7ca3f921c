/// A TOML 1.0 parser covering what a configuration file needs: comments, `[tables]`, dotted keys,
/// basic/literal (multi-line) strings with escapes, integers (decimal with `_`, hex/octal/binary),
/// floats (incl. `inf`/`nan`), booleans, arrays and inline tables. Every key keeps its line.
/// Not supported (reported as syntax errors with their line): arrays of tables `[[x]]` and
/// dates/times, neither of which this configuration uses.
public enum TOMLParser {
    /// Arrays and inline tables nested deeper than this, or keys with more dotted parts, are refused (the
    /// parser recurses on nesting; ~40,000 levels would overflow the stack).
    public static let maxNesting = 128

    public static func parse(_ text: String) throws(TOMLSyntaxError) -> TOMLTable {
        try parse(bytes: Array(text.utf8))
    }

    /// A file's bytes: they must be UTF-8 (TOML 1.0 §"Spec"); the first invalid sequence is reported with
    /// its line.
    public static func parse(bytes input: [UInt8]) throws(TOMLSyntaxError) -> TOMLTable {
        var bytes = input
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }  // UTF-8 byte order mark
        if let line = firstInvalidUTF8Line(bytes) {
            throw TOMLSyntaxError(line: line, message: "the file is not valid UTF-8 (TOML files must be UTF-8)")
        }
        var parser = TOMLDocumentParser(bytes: bytes)
        return try parser.parseDocument()
    }

    /// The 1-based line holding the first byte sequence that is not UTF-8, nil when all of it is. Lines are
    /// checked one by one: no UTF-8 sequence contains a newline byte.
    static func firstInvalidUTF8Line(_ bytes: [UInt8]) -> Int? {
        guard String(validating: bytes, as: UTF8.self) == nil else { return nil }
        var line = 1
        var start = 0
        while start <= bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            if String(validating: bytes[start..<end], as: UTF8.self) == nil { return line }
            line += 1
            start = end + 1
        }
        return line
    }
}

/// Which tables were defined how; TOML forbids redefining them in certain ways.
struct TOMLTableTracker {
    var headers: Set<[String]> = []
    var dotted: Set<[String]> = []
    var frozen: Set<[String]> = []
}

struct TOMLDocumentParser {
    var scanner: TOMLScanner
    var root = TOMLTable(line: 0)
    var tracker = TOMLTableTracker()
    var currentPath: [String] = []

    init(bytes: [UInt8]) {
        scanner = TOMLScanner(bytes: bytes)
    }

    mutating func parseDocument() throws(TOMLSyntaxError) -> TOMLTable {
        while true {
            scanner.skipWhitespace()
            guard let byte = scanner.peek() else { break }
            switch byte {
            case UInt8(ascii: "#"):
                try scanner.skipComment()
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                try scanner.expectNewlineOrEnd()
            case UInt8(ascii: "["):
                try parseHeader()
                try scanner.expectEndOfLine(after: "table header")
            default:
                try parseKeyValue()
                try scanner.expectEndOfLine(after: "value")
            }
        }
        return root
    }

    private mutating func parseHeader() throws(TOMLSyntaxError) {
        let line = scanner.line
        scanner.advance()  // [
        if scanner.peek() == UInt8(ascii: "[") {
            throw TOMLSyntaxError(line: line, message: "arrays of tables ([[...]]) are not used in this configuration")
        }
        let path = try scanner.parseKey()
        scanner.skipWhitespace()
        guard scanner.peek() == UInt8(ascii: "]") else {
            throw scanner.error("expected \"]\" to close the table header")
        }
        scanner.advance()
        // Moved out and back rather than copied: a copy would make every insert copy the whole tree.
        var (root, tracker) = takeTree()
        defer { putTree(root, tracker) }
        try TOMLTableEditor.defineHeader(path, in: &root, tracker: &tracker, line: line)
        currentPath = path
    }

    private mutating func parseKeyValue() throws(TOMLSyntaxError) {
        let line = scanner.line
        let key = try scanner.parseKey()
        scanner.skipWhitespace()
        guard scanner.peek() == UInt8(ascii: "=") else {
            throw scanner.error("expected \"=\" after key \(TOMLTableEditor.display(key))")
        }
        scanner.advance()
        scanner.skipWhitespace()
        let value = try scanner.parseValue()
        var (root, tracker) = takeTree()
        defer { putTree(root, tracker) }
        try TOMLTableEditor.insert(
            value, at: currentPath, key: key, in: &root, tracker: &tracker, line: line
        )
    }

    private mutating func takeTree() -> (TOMLTable, TOMLTableTracker) {
        var root = TOMLTable(line: 0)
        var tracker = TOMLTableTracker()
        swap(&root, &self.root)
        swap(&tracker, &self.tracker)
        return (root, tracker)
    }

    private mutating func putTree(_ root: consuming TOMLTable, _ tracker: consuming TOMLTableTracker) {
        self.root = root
        self.tracker = tracker
    }
}
