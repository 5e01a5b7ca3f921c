/// Byte-level reading of TOML: whitespace, comments, keys and values. Tracks the current line.
struct TOMLScanner {
    let bytes: [UInt8]
    var position = 0
    private(set) var line = 1
    /// Arrays and inline tables currently open around the value being read.
    private var nesting = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    static func isBareKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    func error(_ message: String) -> TOMLSyntaxError {
        TOMLSyntaxError(line: line, message: message)
    }

    func peek(_ offset: Int = 0) -> UInt8? {
        position + offset < bytes.count ? bytes[position + offset] : nil
    }

    mutating func advance(_ count: Int = 1) {
        position += count
    }

    private func describe(_ byte: UInt8) -> String {
        switch byte {
        case UInt8(ascii: "\n"), UInt8(ascii: "\r"): "end of line"
        case 0x20...0x7E: "\"" + String(decoding: [byte], as: UTF8.self) + "\""
        default: "byte 0x" + String(byte, radix: 16)
        }
    }

    // MARK: whitespace, comments, newlines

    mutating func skipWhitespace() {
        while let byte = peek(), byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
            advance()
        }
    }

    mutating func skipComment() throws(TOMLSyntaxError) {
        while let byte = peek(), byte != UInt8(ascii: "\n") {
            if byte == UInt8(ascii: "\r") && peek(1) == UInt8(ascii: "\n") { break }
            if byte < 0x20 && byte != UInt8(ascii: "\t") || byte == 0x7F {
                throw error("control character \(describe(byte)) in a comment")
            }
            advance()
        }
    }

    /// Consumes one newline (`\n` or `\r\n`) or accepts the end of input.
    mutating func expectNewlineOrEnd() throws(TOMLSyntaxError) {
        guard let byte = peek() else { return }
        if byte == UInt8(ascii: "\n") {
            advance()
            line += 1
        } else if byte == UInt8(ascii: "\r") && peek(1) == UInt8(ascii: "\n") {
            advance(2)
            line += 1
        } else {
            throw error("unexpected \(describe(byte))")
        }
    }

    /// After a value or header only whitespace and a comment may follow on the line.
    mutating func expectEndOfLine(after what: String) throws(TOMLSyntaxError) {
        skipWhitespace()
        if peek() == UInt8(ascii: "#") { try skipComment() }
        guard let byte = peek() else { return }
        guard byte == UInt8(ascii: "\n") || (byte == UInt8(ascii: "\r") && peek(1) == UInt8(ascii: "\n")) else {
            throw error("unexpected \(describe(byte)) after \(what) (one key = value per line)")
        }
        try expectNewlineOrEnd()
    }

    /// Whitespace, newlines and comments, as allowed between array elements.
    mutating func skipBlankSpace() throws(TOMLSyntaxError) {
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"): advance()
            case UInt8(ascii: "#"): try skipComment()
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"): try expectNewlineOrEnd()
            default: return
            }
        }
    }

    // MARK: keys

    /// A possibly dotted key: `a`, `a.b`, `"quoted key".'literal'`.
    mutating func parseKey() throws(TOMLSyntaxError) -> [String] {
        var parts: [String] = []
        while true {
            skipWhitespace()
            guard parts.count < TOMLParser.maxNesting else {
                throw error("key has more than \(TOMLParser.maxNesting) dotted parts")
            }
            parts.append(try parseSimpleKey())
            skipWhitespace()
            guard peek() == UInt8(ascii: ".") else { return parts }
            advance()
        }
    }

    private mutating func parseSimpleKey() throws(TOMLSyntaxError) -> String {
        guard let byte = peek() else { throw error("expected a key, found end of file") }
        switch byte {
        case UInt8(ascii: "\""):
            advance()
            return try parseBasicString()
        case UInt8(ascii: "'"):
            advance()
            return try parseLiteralString()
        default:
            let start = position
            while let byte = peek(), Self.isBareKeyByte(byte) { advance() }
            guard position > start else {
                throw error("expected a key, found \(describe(byte))")
            }
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }
    }

    // MARK: values

    mutating func parseValue() throws(TOMLSyntaxError) -> TOMLValue {
        guard let byte = peek() else { throw error("expected a value, found end of file") }
        switch byte {
        case UInt8(ascii: "\""):
            if peek(1) == UInt8(ascii: "\"") && peek(2) == UInt8(ascii: "\"") {
                advance(3)
                return .string(try parseMultilineString(literal: false))
            }
            advance()
            return .string(try parseBasicString())
        case UInt8(ascii: "'"):
            if peek(1) == UInt8(ascii: "'") && peek(2) == UInt8(ascii: "'") {
                advance(3)
                return .string(try parseMultilineString(literal: true))
            }
            advance()
            return .string(try parseLiteralString())
        case UInt8(ascii: "["), UInt8(ascii: "{"):
            guard nesting < TOMLParser.maxNesting else {
                throw error("arrays and inline tables nested more than \(TOMLParser.maxNesting) deep")
            }
            advance()
            nesting += 1
            defer { nesting -= 1 }
            if byte == UInt8(ascii: "[") { return try parseArray() }
            return try parseInlineTable()
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            return try parseBoolean()
        case UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "#"):
            throw error("expected a value after \"=\"")
        case 0xE2 where peek(1) == 0x80 && (0x98...0x9F).contains(peek(2) ?? 0):
            // U+2018...U+201F: what a word processor or a web page makes of a quote.
            throw error("typographic quotes are not TOML quotes: type the value between straight quotes (\"...\")")
        default:
            return try parseNumber()
        }
    }

    private mutating func parseBoolean() throws(TOMLSyntaxError) -> TOMLValue {
        let token = takeToken()
        switch token {
        case "true": return .boolean(true)
        case "false": return .boolean(false)
        default: throw error("invalid value \(token) (strings need quotes: \"\(token)\")")
        }
    }

    /// The run of bytes that can make up a number, boolean or date.
    private mutating func takeToken() -> String {
        let start = position
        while let byte = peek() {
            let isTokenByte =
                Self.isBareKeyByte(byte) || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
            guard isTokenByte else { break }
            advance()
        }
        if position == start, let byte = peek() {
            advance()
            return String(decoding: [byte], as: UTF8.self)
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private mutating func parseNumber() throws(TOMLSyntaxError) -> TOMLValue {
        let token = takeToken()
        if let value = TOMLNumber.parse(token) { return value }
        if TOMLNumber.looksLikeDateOrTime(token) {
            throw error("dates and times are not supported in this configuration (use a string)")
        }
        if token.utf8.first.map({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") }) == true
        {
            if TOMLNumber.isWellFormedDecimalInteger(token) {
                throw error("integer \(token) is out of range")
            }
            throw error("invalid number \(token)")
        }
        throw error("invalid value \(token) (strings need quotes: \"\(token)\")")
    }

    private mutating func parseArray() throws(TOMLSyntaxError) -> TOMLValue {
        var elements: [TOMLValue] = []
        while true {
            try skipBlankSpace()
            guard let byte = peek() else { throw error("unterminated array, expected \"]\"") }
            if byte == UInt8(ascii: "]") {
                advance()
                return .array(elements)
            }
            elements.append(try parseValue())
            try skipBlankSpace()
            guard let next = peek() else { throw error("unterminated array, expected \"]\"") }
            if next == UInt8(ascii: ",") {
                advance()
            } else if next != UInt8(ascii: "]") {
                throw error("expected \",\" or \"]\" in array, found \(describe(next))")
            }
        }
    }

    private mutating func parseInlineTable() throws(TOMLSyntaxError) -> TOMLValue {
        let startLine = line
        var table = TOMLTable(line: startLine)
        var tracker = TOMLTableTracker()
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            advance()
            return .table(table)
        }
        while true {
            skipWhitespace()
            if peek() == UInt8(ascii: "\n") || peek() == UInt8(ascii: "\r") {
                throw error("newlines are not allowed inside an inline table")
            }
            let key = try parseKey()
            guard peek() == UInt8(ascii: "=") else {
                throw error("expected \"=\" after key \(TOMLTableEditor.display(key))")
            }
            advance()
            skipWhitespace()
            let value = try parseValue()
            try TOMLTableEditor.insert(value, at: [], key: key, in: &table, tracker: &tracker, line: startLine)
            skipWhitespace()
            guard let byte = peek() else { throw error("unterminated inline table, expected \"}\"") }
            switch byte {
            case UInt8(ascii: "}"):
                advance()
                return .table(table)
            case UInt8(ascii: ","):
                advance()
                skipWhitespace()
                if peek() == UInt8(ascii: "}") {
                    throw error("trailing comma is not allowed in an inline table")
                }
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw error("newlines are not allowed inside an inline table")
            default:
                throw error("expected \",\" or \"}\" in inline table, found \(describe(byte))")
            }
        }
    }
}
