/// A small, lenient XML tokenizer for feeds (no DTDs, no validation): start/end tags with attributes,
/// text with entities decoded, CDATA as text; comments, processing instructions and DOCTYPE skipped.
/// Our own because Foundation's XMLParser would pull in all of Foundation.
enum XMLEvent: Equatable {
    case start(name: String, attributes: [XMLAttribute])
    case end(name: String)
    case text(String)
}

struct XMLAttribute: Equatable {
    var name: String
    var value: String
}

struct XMLTokenizer {
    private let bytes: [UInt8]
    private var index = 0
    /// The end event owed for a self-closing tag.
    private var pendingEnd: String?

    /// The input is decoded as `TextDecoding` says: UTF-16 by its byte order mark, the encoding the XML
    /// declaration names, UTF-8, else windows-1252; the tokenizer then works on UTF-8.
    init(_ input: [UInt8]) {
        let isPlainUTF8 =
            !input.starts(with: [0xFE, 0xFF]) && !input.starts(with: [0xFF, 0xFE])
            && Self.declaredEncoding(input).map({ TextDecoding.table(forLabel: $0) == nil }) ?? true
            && String(validating: input, as: UTF8.self) != nil
        if isPlainUTF8 {
            bytes = input.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(input.dropFirst(3)) : input
        } else {
            var text = TextDecoding.decode(input, declared: Self.declaredEncoding(input))
            if text.unicodeScalars.first == "\u{FEFF}" { text.unicodeScalars.removeFirst() }
            bytes = Array(text.utf8)
        }
    }

    /// `encoding="…"` from an XML declaration at the start (ASCII-compatible encodings only; UTF-16 is
    /// recognised by its byte order mark).
    static func declaredEncoding(_ input: [UInt8]) -> String? {
        let head = String(decoding: input.prefix(256), as: UTF8.self)
        guard head.hasPrefix("<?xml") || head.hasPrefix("\u{FEFF}<?xml"), let end = head.firstIndex(of: ">") else { return nil }
        let declaration = head[..<end]
        guard let key = declaration.firstRange(of: "encoding") else { return nil }
        var rest = declaration[key.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\t" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        rest = rest.dropFirst()
        return String(rest.prefix { $0 != quote })
    }

    mutating func next() -> XMLEvent? {
        if let name = pendingEnd {
            pendingEnd = nil
            return .end(name: name)
        }
        while index < bytes.count {
            if bytes[index] != UInt8(ascii: "<") {
                let start = index
                while index < bytes.count, bytes[index] != UInt8(ascii: "<") { index += 1 }
                return .text(Self.decodeEntities(bytes[start..<index]))
            }
            if has("<!--") {
                skip(past: "-->")
            } else if has("<![CDATA[") {
                let start = index + 9
                skip(past: "]]>")
                let end = max(start, min(index, bytes.count) - 3)
                return .text(String(decoding: bytes[start..<max(start, end)], as: UTF8.self))
            } else if has("<?") {
                skip(past: "?>")
            } else if has("<!") {
                skipDeclaration()
            } else if has("</") {
                index += 2
                let name = readName()
                skip(past: ">")
                return .end(name: name)
            } else {
                index += 1
                let name = readName()
                guard !name.isEmpty else { continue }
                var attributes: [XMLAttribute] = []
                var selfClosing = false
                while index < bytes.count {
                    skipSpace()
                    guard index < bytes.count else { break }
                    if bytes[index] == UInt8(ascii: ">") {
                        index += 1
                        break
                    }
                    if has("/>") {
                        index += 2
                        selfClosing = true
                        break
                    }
                    let attributeName = readName()
                    if attributeName.isEmpty {
                        index += 1
                        continue
                    }
                    skipSpace()
                    var value = ""
                    if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                        index += 1
                        skipSpace()
                        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") {
                            let quote = bytes[index]
                            index += 1
                            let start = index
                            while index < bytes.count, bytes[index] != quote { index += 1 }
                            value = Self.decodeEntities(bytes[start..<index])
                            index += 1
                        } else {
                            let start = index
                            while index < bytes.count, !isSpace(bytes[index]), bytes[index] != UInt8(ascii: ">") { index += 1 }
                            value = Self.decodeEntities(bytes[start..<index])
                        }
                    }
                    attributes.append(XMLAttribute(name: attributeName, value: value))
                }
                if selfClosing { pendingEnd = name }
                return .start(name: name, attributes: attributes)
            }
        }
        return nil
    }

    private func has(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let pointer = literal.utf8Start
        for offset in 0..<count where bytes[index + offset] != pointer[offset] { return false }
        return true
    }

    private mutating func skip(past literal: StaticString) {
        while index < bytes.count, !has(literal) { index += 1 }
        index = min(bytes.count, index + literal.utf8CodeUnitCount)
    }

    /// `<!DOCTYPE ... [ ... ]>`: skips nested brackets.
    private mutating func skipDeclaration() {
        var depth = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "[") { depth += 1 }
            if byte == UInt8(ascii: "]") { depth -= 1 }
            if byte == UInt8(ascii: ">"), depth <= 0 { return }
        }
    }

    private func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    private mutating func skipSpace() {
        while index < bytes.count, isSpace(bytes[index]) { index += 1 }
    }

    private mutating func readName() -> String {
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if isSpace(byte) || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "=") { break }
            index += 1
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// A numeric reference's scalar; 0x80–0x9F mean their windows-1252 characters (as in HTML), NUL and
    /// non-scalars become U+FFFD.
    static func characterReference(_ value: UInt32) -> Unicode.Scalar? {
        if (0x80...0x9F).contains(value), let table = TextDecoding.table(forLabel: "windows-1252") {
            return table[Int(value - 0x80)]
        }
        guard value != 0, let scalar = Unicode.Scalar(value) else { return "\u{FFFD}" }
        return scalar
    }

    /// XML's five predefined entities, HTML 4's named ones (feeds use them though XML does not define
    /// them) and numeric references; anything else stays literal.
    static func decodeEntities(_ slice: ArraySlice<UInt8>) -> String {
        guard slice.contains(UInt8(ascii: "&")) else { return String(decoding: slice, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(slice.count)
        var index = slice.startIndex
        while index < slice.endIndex {
            let byte = slice[index]
            guard byte == UInt8(ascii: "&"),
                let semicolon = slice[index...].prefix(12).firstIndex(of: UInt8(ascii: ";"))
            else {
                out.append(byte)
                index += 1
                continue
            }
            let name = String(decoding: slice[(index + 1)..<semicolon], as: UTF8.self)
            let replacement: Unicode.Scalar?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                replacement = UInt32(name.dropFirst(2), radix: 16).flatMap(Self.characterReference)
            } else if name.hasPrefix("#") {
                replacement = UInt32(name.dropFirst()).flatMap(Self.characterReference)
            } else {
                replacement = HTMLEntities.table[name]
            }
            if let replacement {
                out.append(contentsOf: String(replacement).utf8)
                index = semicolon + 1
            } else {
                out.append(byte)
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
