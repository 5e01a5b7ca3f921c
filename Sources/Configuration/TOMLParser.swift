/// A TOML 1.0 parser covering what a configuration file needs: comments, `[tables]`, dotted keys,
/// basic/literal (multi-line) strings with escapes, integers (decimal with `_`, hex/octal/binary),
/// floats (incl. `inf`/`nan`), booleans, arrays and inline tables. Every key keeps its line.
/// Not supported (reported as syntax errors with their line): arrays of tables `[[x]]` and
/// dates/times, neither of which this configuration uses.
public enum TOMLParser {
    public static func parse(_ text: String) throws(TOMLSyntaxError) -> TOMLTable {
        var bytes = Array(text.utf8)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }  // UTF-8 byte order mark
        var parser = TOMLDocumentParser(bytes: bytes)
        return try parser.parseDocument()
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
        var tracker = self.tracker
        var root = self.root
        try TOMLTableEditor.defineHeader(path, in: &root, tracker: &tracker, line: line)
        self.root = root
        self.tracker = tracker
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
        var tracker = self.tracker
        var root = self.root
        try TOMLTableEditor.insert(
            value, at: currentPath, key: key, in: &root, tracker: &tracker, line: line
        )
        self.root = root
        self.tracker = tracker
    }
}
