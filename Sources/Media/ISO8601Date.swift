import Basics

/// Atom and many podcast feeds' dates: `2024-07-16T09:30:00+02:00`, `2024-07-16T07:30:00.5Z`,
/// `2024-07-16 07:30:00`, `2024-07-16` (midnight UTC), `20240716T073000Z`. Range-checked like
/// `RFC822Date`.
enum ISO8601Date {
    static func parse(_ text: String) -> Int64? {
        let trimmed = text.trimmed()
        guard trimmed.utf8.count <= 64 else { return nil }
        let scalars = Array(trimmed.utf8)
        var index = 0
        func digits(_ count: Int) -> Int? {
            guard index + count <= scalars.count else { return nil }
            let value = DecimalField.parse(String(decoding: scalars[index..<(index + count)], as: UTF8.self), maxDigits: count)
            if value != nil { index += count }
            return value
        }
        func skip(_ byte: UInt8) -> Bool {
            guard index < scalars.count, scalars[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = digits(4) else { return nil }
        let extended = skip(UInt8(ascii: "-"))
        guard let month = digits(2) else { return nil }
        if extended, !skip(UInt8(ascii: "-")) { return nil }
        guard let day = digits(2) else { return nil }
        var hour = 0, minute = 0, second = 0, offset = 0
        if index < scalars.count {
            guard skip(UInt8(ascii: "T")) || skip(UInt8(ascii: "t")) || skip(UInt8(ascii: " ")) else { return nil }
            let rest = String(decoding: scalars[index...], as: UTF8.self)
            let zoneStart = rest.firstIndex { $0 == "Z" || $0 == "z" || $0 == "+" || $0 == "-" || $0 == " " } ?? rest.endIndex
            var clock = rest[..<zoneStart]
            if !clock.contains(":"), clock.count >= 4 {  // basic format hhmm[ss]
                var spaced = String(clock.prefix(2)) + ":" + String(clock.dropFirst(2).prefix(2))
                if clock.count > 4 { spaced += ":" + String(clock.dropFirst(4)) }
                clock = Substring(spaced)
            }
            guard let time = TimeOfDay.parse(clock) else { return nil }
            (hour, minute, second) = time
            let zone = rest[zoneStart...].trimmed().lowercased()
            if !zone.isEmpty {
                guard let value = RFC822Date.zoneOffset(zone) else { return nil }
                offset = value
            }
        }
        return CivilTime.seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second, offset: offset)
    }
}

/// A feed's publication date in either form (RFC 822 in RSS, ISO 8601 in Atom and in the wild).
enum FeedDate {
    static func parse(_ text: String) -> Int64? {
        RFC822Date.parse(text) ?? ISO8601Date.parse(text)
    }
}
