import Basics

/// One ICY metadata block, e.g. `StreamTitle='Artist - Title';StreamUrl='';`, decoded leniently:
/// UTF-8 when valid, else windows-1252 (old Shoutcast servers), NUL padding removed, quotes inside
/// values tolerated (`StreamTitle='Guns N' Roses - Don't Cry';`), spaces around `=` allowed.
public struct IcyMetadata: Sendable, Equatable {
    /// Keys in order of appearance with their values.
    public var fields: [(key: String, value: String)]

    public static func == (lhs: IcyMetadata, rhs: IcyMetadata) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.key == $1.key && $0.value == $1.value }
    }

    public init(fields: [(key: String, value: String)]) {
        self.fields = fields
    }

    public init(parsing bytes: some Collection<UInt8>, maxTitleCharacters: Int = 300) {
        var raw = Array(bytes)
        while let last = raw.last, last == 0 { raw.removeLast() }
        let text = TextDecoding.utf8OrWindows1252(raw)
        fields = IcyMetadata.parseFields(text).map { field in
            (field.key, field.key.lowercased() == "streamtitle" ? String(field.value.prefix(maxTitleCharacters)) : field.value)
        }
    }

    public func value(_ key: String) -> String? {
        let wanted = key.lowercased()
        return fields.first { $0.key.lowercased() == wanted }?.value
    }

    /// The now-playing title, nil when absent or blank.
    public var streamTitle: String? {
        guard let title = value("StreamTitle")?.trimmed(), !title.isEmpty else { return nil }
        return title
    }

    public var streamURL: String? { value("StreamUrl") }

    /// The wire form, padded with NULs to a multiple of 16 (for stand-in servers and tests).
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        for field in fields { bytes += Array("\(field.key)='\(field.value)';".utf8) }
        let padded = (bytes.count + 15) / 16 * 16
        return bytes + [UInt8](repeating: 0, count: padded - bytes.count)
    }

    /// `Key='value';` pairs. A value ends at `';` followed by another `Key=` or the end, so quotes and
    /// semicolons inside titles survive.
    static func parseFields(_ text: String) -> [(key: String, value: String)] {
        let chars = Array(text)
        var fields: [(String, String)] = []
        var index = 0
        while index < chars.count {
            while index < chars.count, chars[index] == ";" || chars[index].isWhitespace { index += 1 }
            guard let equals = chars[index...].firstIndex(of: "=") else { break }
            let key = String(chars[index..<equals]).trimmed()
            var valueStart = equals + 1
            while valueStart < chars.count, chars[valueStart] == " " || chars[valueStart] == "\t" { valueStart += 1 }
            let quoted = valueStart < chars.count && (chars[valueStart] == "'" || chars[valueStart] == "\"")
            let quote = quoted ? chars[valueStart] : ";"
            if quoted { valueStart += 1 }
            var end = chars.count
            var next = chars.count
            var scan = valueStart
            while scan < chars.count {
                if quoted, chars[scan] == quote {
                    let after = scan + 1
                    if after >= chars.count || (chars[after] == ";" && startsField(chars, after + 1)) {
                        end = scan
                        next = min(chars.count, after + 1)
                        break
                    }
                } else if !quoted, chars[scan] == ";" {
                    end = scan
                    next = scan + 1
                    break
                }
                scan += 1
            }
            if quoted, scan >= chars.count, let lastQuote = chars[valueStart...].lastIndex(of: quote) {
                end = lastQuote  // unterminated by `';`: take up to the last quote
            }
            if !key.isEmpty { fields.append((key, String(chars[valueStart..<max(valueStart, end)]))) }
            index = next
        }
        return fields
    }

    /// True at the end of the text or where `Key=` follows (after optional whitespace).
    private static func startsField(_ chars: [Character], _ start: Int) -> Bool {
        var index = start
        while index < chars.count, chars[index].isWhitespace { index += 1 }
        guard index < chars.count else { return true }
        var sawKeyCharacter = false
        while index < chars.count, chars[index].isLetter || chars[index].isNumber || chars[index] == "_" {
            sawKeyCharacter = true
            index += 1
        }
        return sawKeyCharacter && index < chars.count && chars[index] == "="
    }
}
