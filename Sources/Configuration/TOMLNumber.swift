/// TOML integer and float literals, validated to the letter (underscores only between digits,
/// no leading zeros) and converted without Foundation.
enum TOMLNumber {
    static func parse(_ token: String) -> TOMLValue? {
        switch token {
        case "inf", "+inf": return .float(.infinity)
        case "-inf": return .float(-.infinity)
        case "nan", "+nan", "-nan": return .float(.nan)
        default: break
        }
        let utf8 = Array(token.utf8)
        if utf8.count > 2, utf8[0] == UInt8(ascii: "0") {
            switch utf8[1] {
            case UInt8(ascii: "x"): return radixInteger(utf8[2...], radix: 16)
            case UInt8(ascii: "o"): return radixInteger(utf8[2...], radix: 8)
            case UInt8(ascii: "b"): return radixInteger(utf8[2...], radix: 2)
            default: break
            }
        }
        if isWellFormedDecimalInteger(token) {
            return Int64(stripUnderscores(utf8)).map(TOMLValue.integer)
        }
        if isWellFormedFloat(utf8) {
            return Double(stripUnderscores(utf8)).map(TOMLValue.float)
        }
        return nil
    }

    static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }

    static func looksLikeDateOrTime(_ token: String) -> Bool {
        let utf8 = Array(token.utf8)
        func digits(_ range: Range<Int>) -> Bool {
            range.upperBound <= utf8.count && utf8[range].allSatisfy(isDigit)
        }
        let date = digits(0..<4) && utf8.count > 4 && utf8[4] == UInt8(ascii: "-")
        let time = digits(0..<2) && utf8.count > 2 && utf8[2] == UInt8(ascii: ":")
        return date || time
    }

    static func isWellFormedDecimalInteger(_ token: String) -> Bool {
        var digits = Array(token.utf8)[...]
        if let first = digits.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
            digits = digits.dropFirst()
        }
        guard isDigitRun(digits, isDigit) else { return false }
        return digits.count == 1 || digits.first != UInt8(ascii: "0")
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// Digits with single underscores between them.
    private static func isDigitRun(_ bytes: ArraySlice<UInt8>, _ isDigit: (UInt8) -> Bool) -> Bool {
        guard let first = bytes.first, let last = bytes.last, isDigit(first), isDigit(last) else { return false }
        var previousUnderscore = false
        for byte in bytes {
            if byte == UInt8(ascii: "_") {
                if previousUnderscore { return false }
                previousUnderscore = true
            } else if isDigit(byte) {
                previousUnderscore = false
            } else {
                return false
            }
        }
        return true
    }

    private static func stripUnderscores(_ bytes: some Sequence<UInt8>) -> String {
        String(decoding: bytes.filter { $0 != UInt8(ascii: "_") }, as: UTF8.self)
    }

    private static func radixInteger(_ bytes: ArraySlice<UInt8>, radix: Int) -> TOMLValue? {
        let isDigit: (UInt8) -> Bool = { hexValue($0).map { $0 < radix } ?? false }
        guard isDigitRun(bytes, isDigit) else { return nil }
        return Int64(stripUnderscores(bytes), radix: radix).map(TOMLValue.integer)
    }

    /// `[+-] int-part ( "." digits )? ( [eE] [+-] digits )?` with at least a fraction or exponent.
    private static func isWellFormedFloat(_ utf8: [UInt8]) -> Bool {
        var rest = utf8[...]
        if let first = rest.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
            rest = rest.dropFirst()
        }
        let exponentIndex = rest.firstIndex { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        let mantissa = rest[..<(exponentIndex ?? rest.endIndex)]
        let dotIndex = mantissa.firstIndex(of: UInt8(ascii: "."))
        let integerPart = mantissa[..<(dotIndex ?? mantissa.endIndex)]
        guard isDigitRun(integerPart, isDigit) else { return false }
        if integerPart.count > 1 && integerPart.first == UInt8(ascii: "0") { return false }
        if let dotIndex {
            guard isDigitRun(mantissa[(dotIndex + 1)...], isDigit) else { return false }
        }
        if let exponentIndex {
            var exponent = rest[(exponentIndex + 1)...]
            if let sign = exponent.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                exponent = exponent.dropFirst()
            }
            guard isDigitRun(exponent, isDigit) else { return false }
        }
        return dotIndex != nil || exponentIndex != nil
    }
}
