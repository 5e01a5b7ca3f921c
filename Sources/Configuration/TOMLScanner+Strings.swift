extension TOMLScanner {
    private static let quote = UInt8(ascii: "\"")
    private static let apostrophe = UInt8(ascii: "'")
    private static let backslash = UInt8(ascii: "\\")

    private func isForbiddenControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F
    }

    /// After the opening `"`; single line, with escapes.
    mutating func parseBasicString() throws(TOMLSyntaxError) -> String {
        var out: [UInt8] = []
        while true {
            guard let byte = peek(), byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "\r") else {
                throw error("unterminated string (missing closing \")")
            }
            advance()
            switch byte {
            case Self.quote:
                return String(decoding: out, as: UTF8.self)
            case Self.backslash:
                try parseEscape(into: &out)
            default:
                if isForbiddenControl(byte) { throw error("control character in a string (use an escape)") }
                out.append(byte)
            }
        }
    }

    /// After the opening `'`; single line, no escapes.
    mutating func parseLiteralString() throws(TOMLSyntaxError) -> String {
        let start = position
        while true {
            guard let byte = peek(), byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "\r") else {
                throw error("unterminated string (missing closing ')")
            }
            if byte == Self.apostrophe {
                let text = String(decoding: bytes[start..<position], as: UTF8.self)
                advance()
                return text
            }
            if isForbiddenControl(byte) { throw error("control character in a string") }
            advance()
        }
    }

    /// After the opening `"""` or `'''`.
    mutating func parseMultilineString(literal: Bool) throws(TOMLSyntaxError) -> String {
        let startLine = line
        let delimiter = literal ? Self.apostrophe : Self.quote
        // A newline right after the opening delimiter is trimmed.
        if peek() == UInt8(ascii: "\n") || (peek() == UInt8(ascii: "\r") && peek(1) == UInt8(ascii: "\n")) {
            try expectNewlineOrEnd()
        }
        var out: [UInt8] = []
        while true {
            guard let byte = peek() else {
                throw TOMLSyntaxError(line: startLine, message: "unterminated multi-line string (missing closing \(literal ? "'''" : "\"\"\""))")
            }
            if byte == delimiter && peek(1) == delimiter && peek(2) == delimiter {
                var run = 3
                while peek(run) == delimiter { run += 1 }
                if run > 5 { throw error("too many quotes at the end of a multi-line string") }
                out.append(contentsOf: repeatElement(delimiter, count: run - 3))
                advance(run)
                return String(decoding: out, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                try expectNewlineOrEnd()
                out.append(UInt8(ascii: "\n"))
                continue
            }
            advance()
            if byte == Self.backslash && !literal {
                if try skipLineEndingBackslash() { continue }
                try parseEscape(into: &out)
                continue
            }
            if isForbiddenControl(byte) { throw error("control character in a string") }
            out.append(byte)
        }
    }

    /// `\` followed by optional whitespace and a newline: trims all whitespace up to the next
    /// non-whitespace character. Returns false (consuming nothing) for an ordinary escape.
    private mutating func skipLineEndingBackslash() throws(TOMLSyntaxError) -> Bool {
        var offset = 0
        while let byte = peek(offset), byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { offset += 1 }
        guard peek(offset) == UInt8(ascii: "\n") || (peek(offset) == UInt8(ascii: "\r") && peek(offset + 1) == UInt8(ascii: "\n")) else {
            return false
        }
        advance(offset)
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"): advance()
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"): try expectNewlineOrEnd()
            default: return true
            }
        }
        return true
    }

    /// After a `\` in a basic string.
    private mutating func parseEscape(into out: inout [UInt8]) throws(TOMLSyntaxError) {
        guard let byte = peek() else { throw error("unterminated escape sequence") }
        advance()
        switch byte {
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "\""): out.append(Self.quote)
        case UInt8(ascii: "\\"): out.append(Self.backslash)
        case UInt8(ascii: "u"): try parseUnicodeEscape(digits: 4, into: &out)
        case UInt8(ascii: "U"): try parseUnicodeEscape(digits: 8, into: &out)
        default:
            throw error("invalid escape sequence \\\(String(decoding: [byte], as: UTF8.self)) (write \\\\ for a backslash)")
        }
    }

    private mutating func parseUnicodeEscape(digits: Int, into out: inout [UInt8]) throws(TOMLSyntaxError) {
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard let byte = peek(), let digit = TOMLNumber.hexValue(byte) else {
                throw error("\\\(digits == 4 ? "u" : "U") needs \(digits) hexadecimal digits")
            }
            value = value * 16 + UInt32(digit)
            advance()
        }
        guard let scalar = Unicode.Scalar(value) else {
            throw error("\\\(digits == 4 ? "u" : "U") escape is not a Unicode scalar value")
        }
        out.append(contentsOf: Array(String(Character(scalar)).utf8))
    }
}
