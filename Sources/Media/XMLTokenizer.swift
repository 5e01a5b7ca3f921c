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

    /// Bytes that are not valid UTF-8 (or declare a Latin-1 encoding) are read as Latin-1.
    init(_ input: [UInt8]) {
        let head = String(decoding: input.prefix(200), as: UTF8.self).lowercased()
        let declaresLatin1 = head.hasPrefix("<?xml") && (head.contains("iso-8859-1") || head.contains("windows-1252") || head.contains("latin1"))
        if declaresLatin1 || String(validating: input, as: UTF8.self) == nil {
            var text = ""
            text.unicodeScalars.append(contentsOf: input.map { Unicode.Scalar($0) })
            bytes = Array(text.utf8)
        } else {
            bytes = input.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(input.dropFirst(3)) : input
        }
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
                    if bytes[index] == UInt8(ascii: ">") { index += 1; break }
                    if has("/>") { index += 2; selfClosing = true; break }
                    let attributeName = readName()
                    if attributeName.isEmpty { index += 1; continue }
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

    static func decodeEntities(_ slice: ArraySlice<UInt8>) -> String {
        guard slice.contains(UInt8(ascii: "&")) else { return String(decoding: slice, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(slice.count)
        var index = slice.startIndex
        while index < slice.endIndex {
            let byte = slice[index]
            guard byte == UInt8(ascii: "&"),
                  let semicolon = slice[index...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                out.append(byte)
                index += 1
                continue
            }
            let name = String(decoding: slice[(index + 1)..<semicolon], as: UTF8.self)
            var replacement: String?
            switch name {
            case "amp": replacement = "&"
            case "lt": replacement = "<"
            case "gt": replacement = ">"
            case "quot": replacement = "\""
            case "apos": replacement = "'"
            case "nbsp": replacement = "\u{00A0}"
            default:
                if name.hasPrefix("#x") || name.hasPrefix("#X") {
                    replacement = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String($0) }
                } else if name.hasPrefix("#") {
                    replacement = UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init).map { String($0) }
                }
            }
            if let replacement {
                out.append(contentsOf: replacement.utf8)
                index = semicolon + 1
            } else {
                out.append(byte)
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
