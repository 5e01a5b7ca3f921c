import Basics

/// Turns the bytes of a feed, playlist or ICY title into text: UTF-8 when valid, UTF-16 by its byte
/// order mark, a declared single-byte encoding from `SingleByteTables`, a declared multi-byte one
/// (GBK, EUC-KR, Shift_JIS, Big5…) through `IconvDecoding`, else windows-1252 (what old
/// Shoutcast servers and Windows-made files send, and what browsers read "ISO-8859-1" as).
public enum TextDecoding {
    /// Encoding labels as feeds write them → the table name (WHATWG's label list, the common part).
    static let aliases: [String: String] = [
        "latin1": "windows-1252", "latin-1": "windows-1252", "l1": "windows-1252", "iso-8859-1": "windows-1252",
        "iso8859-1": "windows-1252", "iso_8859-1": "windows-1252", "us-ascii": "windows-1252", "ascii": "windows-1252",
        "cp1252": "windows-1252", "x-cp1252": "windows-1252", "cp819": "windows-1252", "ibm819": "windows-1252",
        "latin2": "iso-8859-2", "l2": "iso-8859-2", "latin9": "iso-8859-15", "l9": "iso-8859-15", "latin-9": "iso-8859-15",
        "cyrillic": "iso-8859-5", "greek": "iso-8859-7", "hebrew": "iso-8859-8", "iso-8859-8-i": "iso-8859-8",
        "latin5": "iso-8859-9", "tis-620": "iso-8859-11", "windows-874": "iso-8859-11", "koi8": "koi8-r",
        "mac": "macintosh", "x-mac-roman": "macintosh"
    ]

    /// The table for an encoding label, nil for UTF-8/UTF-16 and for labels we have no table for.
    static func table(forLabel label: String) -> [Unicode.Scalar]? {
        var name = label.trimmed().lowercased()
        if name.hasPrefix("cp125"), name.count == 6 { name = "windows-" + name.dropFirst(2) }
        if name.hasPrefix("iso8859-") { name = "iso-8859-" + name.dropFirst(8) }
        if name.hasPrefix("iso_8859-") { name = "iso-8859-" + name.dropFirst(9) }
        name = aliases[name] ?? name
        return tables[name]
    }

    private static let tables: [String: [Unicode.Scalar]] = SingleByteTables.upperHalves.mapValues { Array($0.unicodeScalars) }

    /// `bytes` read with a 128-entry upper-half table.
    static func decode(_ bytes: some Collection<UInt8>, upperHalf: [Unicode.Scalar]) -> String {
        var text = ""
        text.unicodeScalars.reserveCapacity(bytes.count)
        for byte in bytes {
            text.unicodeScalars.append(byte < 0x80 ? Unicode.Scalar(byte) : upperHalf[Int(byte - 0x80)])
        }
        return text
    }

    /// UTF-16 when the bytes start with its byte order mark (or, without one, with `<?` in UTF-16), nil
    /// otherwise.
    static func decodeUTF16(_ bytes: [UInt8]) -> String? {
        let bigEndian: Bool
        var index = 2
        if bytes.starts(with: [0xFE, 0xFF]) {
            bigEndian = true
        } else if bytes.starts(with: [0xFF, 0xFE]) {
            bigEndian = false
        } else if bytes.starts(with: [0x00, 0x3C, 0x00, 0x3F]) {
            bigEndian = true
            index = 0
        } else if bytes.starts(with: [0x3C, 0x00, 0x3F, 0x00]) {
            bigEndian = false
            index = 0
        } else {
            return nil
        }
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        while index + 1 < bytes.count {
            let pair = (UInt16(bytes[index]), UInt16(bytes[index + 1]))
            units.append(bigEndian ? pair.0 << 8 | pair.1 : pair.1 << 8 | pair.0)
            index += 2
        }
        return String(decoding: units, as: UTF16.self)
    }

    /// UTF-8 (byte order mark dropped) when valid, else windows-1252.
    public static func utf8OrWindows1252(_ bytes: [UInt8]) -> String {
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        if let text = String(validating: body, as: UTF8.self) { return text }
        return decode(body, upperHalf: tables["windows-1252"] ?? [])
    }

    /// A document that may declare its encoding (`declared`, e.g. from `<?xml encoding=…?>`): a UTF-16
    /// byte order mark wins; then a declared single-byte encoding, unless the bytes are valid UTF-8 with
    /// some non-ASCII in them (a file saved as UTF-8 under an old declaration: Latin text is practically
    /// never valid multi-byte UTF-8 by accident); then UTF-8, else windows-1252.
    public static func decode(_ bytes: [UInt8], declared: String?) -> String {
        if let utf16 = decodeUTF16(bytes) { return utf16 }
        if let declared, let table = table(forLabel: declared), String(validating: bytes, as: UTF8.self) == nil || bytes.allSatisfy({ $0 < 0x80 }) {
            return decode(bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes, upperHalf: table)
        }
        if let declared, String(validating: bytes, as: UTF8.self) == nil, let text = IconvDecoding.decode(bytes, label: declared) {
            return text
        }
        return utf8OrWindows1252(bytes)
    }
}
