/// The now-playing text of an ID3v2 tag (HLS timed metadata, a packed-audio segment's tag): its
/// TPE1 (artist) and TIT2 (title) text frames. Bounded by the tag's own size; other frames skipped.
public enum ID3Tag {
    /// "Artist - Title", either alone, or nil when the tag has neither.
    public static func streamTitle(_ tag: [UInt8]) -> String? {
        guard tag.count >= 10, tag.starts(with: Array("ID3".utf8)), [3, 4].contains(tag[3]) else { return nil }
        let version = tag[3]
        guard let size = syncsafe(tag[6..<10]) else { return nil }
        let end = min(tag.count, 10 + size)
        var at = 10
        if tag[5] & 0x40 != 0, at + 4 <= end {  // extended header
            let length = version == 4 ? syncsafe(tag[at..<(at + 4)]) ?? end : Int(bigEndian(tag[at..<(at + 4)])) + 4
            at += length
        }
        var artist: String?
        var title: String?
        while at + 10 <= end {
            let id = String(decoding: tag[at..<(at + 4)], as: UTF8.self)
            guard tag[at] != 0, let length = version == 4 ? syncsafe(tag[(at + 4)..<(at + 8)]) : Int(bigEndian(tag[(at + 4)..<(at + 8)]))
            else { break }
            let body = (at + 10)..<min(end, at + 10 + length)
            if id == "TIT2" { title = text(tag[body]) }
            if id == "TPE1" { artist = text(tag[body]) }
            at += 10 + length
        }
        switch (artist, title) {
        case (let artist?, let title?): return "\(artist) - \(title)"
        case (nil, let title?): return title
        case (let artist?, nil): return artist
        case (nil, nil): return nil
        }
    }

    private static func syncsafe(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count == 4, bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        return bytes.reduce(0) { $0 << 7 | Int($1) }
    }

    private static func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// A text frame's first string: encoding byte, then Latin-1, UTF-16 with BOM, UTF-16BE or UTF-8.
    private static func text(_ frame: ArraySlice<UInt8>) -> String? {
        guard let encoding = frame.first else { return nil }
        var body = Array(frame.dropFirst())
        let value: String
        switch encoding {
        case 0: value = String(body.prefix { $0 != 0 }.map { Character(Unicode.Scalar($0)) })
        case 1, 2:
            var bigEndian = encoding == 2
            if body.count >= 2, (body[0] == 0xFF && body[1] == 0xFE) || (body[0] == 0xFE && body[1] == 0xFF) {
                bigEndian = body[0] == 0xFE
                body.removeFirst(2)
            }
            var units: [UInt16] = []
            for index in stride(from: 0, to: body.count - 1, by: 2) {
                let (high, low) = bigEndian ? (body[index], body[index + 1]) : (body[index + 1], body[index])
                units.append(UInt16(high) << 8 | UInt16(low))
            }
            value = String(decoding: units.prefix { $0 != 0 }, as: UTF16.self)
        default: value = String(decoding: body.prefix { $0 != 0 }, as: UTF8.self)
        }
        let trimmed = value.trimmingCharacters(in: " \t\r\n")
        return trimmed.isEmpty ? nil : trimmed
    }
}
