/// A section header the owner left commented out (`# [led]`): a key uncommented below it lands in the
/// section above, and `check-config` says so instead of only calling the key unknown there.
struct CommentedHeader: Equatable {
    var line: Int
    var name: String

    /// Every `# [name]` line of the file, in order: one linear pass, names of lowercase letters and `_`.
    static func find(in bytes: [UInt8]) -> [CommentedHeader] {
        var found: [CommentedHeader] = []
        var line = 1
        var start = 0
        for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "\n") {
            if let name = headerName(bytes[start..<index]) { found.append(CommentedHeader(line: line, name: name)) }
            line += 1
            start = index + 1
        }
        return found
    }

    private static func headerName(_ text: ArraySlice<UInt8>) -> String? {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") }
        var rest = text.drop(while: isSpace)
        guard rest.first == UInt8(ascii: "#") else { return nil }
        rest = rest.dropFirst().drop(while: isSpace)
        while let last = rest.last, isSpace(last) { rest = rest.dropLast() }
        guard rest.count > 2, rest.first == UInt8(ascii: "["), rest.last == UInt8(ascii: "]") else { return nil }
        let name = rest.dropFirst().dropLast()
        guard name.allSatisfy({ ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || $0 == UInt8(ascii: "_") }) else { return nil }
        return String(decoding: name, as: UTF8.self)
    }
}
