/// RSS dates: `Tue, 10 Jun 2003 04:00:00 GMT`, `10 Jun 2003 04:00 +0200`, `+02:00` offsets, US and
/// military zone names, two-digit years, a missing time or zone. Every field is range-checked before
/// any arithmetic, so no text can overflow it.
enum RFC822Date {
    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    static let zones: [String: Int] = [
        "gmt": 0, "ut": 0, "utc": 0, "z": 0,
        "ast": -4, "adt": -3, "at": -4,
        "est": -5, "edt": -4, "et": -5, "cst": -6, "cdt": -5, "ct": -6,
        "mst": -7, "mdt": -6, "mt": -7, "pst": -8, "pdt": -7, "pt": -8,
        "a": -1, "n": 1, "m": -12, "y": 12, "met": 1, "mest": 2
    ].mapValues { $0 * 3600 }

    /// Seconds since 1970-01-01 UTC, nil when unreadable or out of range.
    static func parse(_ text: String) -> Int64? {
        guard text.utf8.count <= 100 else { return nil }
        var tokens = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" || $0 == "\n" || $0 == "\r" })
            .map { $0.lowercased() }
        if let first = tokens.first, first.first?.isLetter == true, !months.contains(where: { first.hasPrefix($0) }) {
            tokens.removeFirst()  // weekday
        }
        guard tokens.count >= 3 else { return nil }
        // "10 Jun 2003" and the US order "Jun 10 2003".
        if Int(tokens[0]) == nil, Int(tokens[1]) != nil { tokens.swapAt(0, 1) }
        guard let day = DecimalField.parse(tokens[0], maxDigits: 2),
            let month = months.firstIndex(where: { tokens[1].hasPrefix($0) }),
            var year = DecimalField.parse(tokens[2], maxDigits: 4)
        else { return nil }
        if tokens[2].count <= 2 { year += year < 50 ? 2000 : 1900 }  // RFC 2822 §4.3
        var clock = (hour: 0, minute: 0, second: 0)
        var offset = 0
        if tokens.count >= 4 {
            var timeToken = Substring(tokens[3])
            // "04:00:00+0200" and "04:00:00GMT" glued together.
            if let sign = timeToken.firstIndex(where: { $0 == "+" || $0 == "-" || $0.isLetter }) {
                tokens.insert(String(timeToken[sign...]), at: 4)
                timeToken = timeToken[..<sign]
            }
            guard let parsed = TimeOfDay.parse(timeToken) else { return nil }
            clock = parsed
            if tokens.count >= 5 {
                guard let zone = zoneOffset(tokens[4]) else { return nil }
                offset = zone
            }
        }
        return CivilTime.seconds(
            year: year, month: month + 1, day: day, hour: clock.hour, minute: clock.minute,
            second: clock.second, offset: offset)
    }

    /// `gmt`, `est`, `+0200`, `+02:00`, `+2`, `gmt+0200`, `utc-05:00`, `Etc/GMT`; another name counts
    /// as UTC (as in feedparser: `CEST` is better read a few hours off than not at all); nil when a
    /// numeric offset is unreadable.
    static func zoneOffset(_ text: String) -> Int? {
        let zone = text.hasPrefix("etc/") ? String(text.dropFirst(4)) : text
        if let named = zones[zone] { return named }
        for prefix in ["gmt", "utc", "ut"] where zone.hasPrefix(prefix) {
            return numericOffset(zone.dropFirst(prefix.count))
        }
        if zone.first == "+" || zone.first == "-" { return numericOffset(Substring(zone)) }
        return zone.allSatisfy({ $0.isLetter || $0 == "/" || $0 == "_" }) ? 0 : nil
    }

    /// `+hhmm`, `+hh:mm`, `+hh`; hours 0–14 and minutes 0–59.
    static func numericOffset(_ zone: Substring) -> Int? {
        guard let sign = zone.first, sign == "+" || sign == "-" else { return nil }
        let digits = zone.dropFirst().filter { $0 != ":" }
        guard (1...4).contains(digits.count), zone.dropFirst().allSatisfy({ $0 == ":" || $0.isASCII && $0.isNumber }) else { return nil }
        let hours: Int?
        let minutes: Int?
        if digits.count <= 2 {
            hours = DecimalField.parse(digits, maxDigits: 2)
            minutes = 0
        } else {
            hours = DecimalField.parse(digits.dropLast(2), maxDigits: 2)
            minutes = DecimalField.parse(digits.suffix(2), maxDigits: 2)
        }
        guard let hours, let minutes, hours <= 14, minutes < 60 else { return nil }
        return (hours * 3600 + minutes * 60) * (sign == "-" ? -1 : 1)
    }
}

/// `hh`, `hh:mm`, `hh:mm:ss`, `hh:mm:ss.fff` with hours 0–23, minutes and seconds 0–59.
enum TimeOfDay {
    static func parse(_ text: Substring) -> (hour: Int, minute: Int, second: Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count),
            let hour = DecimalField.parse(parts[0], maxDigits: 2),
            let minute = parts.count > 1 ? DecimalField.parse(parts[1], maxDigits: 2) : 0
        else { return nil }
        var second = 0
        if parts.count == 3 {
            let whole = parts[2].split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            guard let value = DecimalField.parse(whole[0], maxDigits: 2) else { return nil }
            if whole.count == 2, !whole[1].allSatisfy({ $0.isASCII && $0.isNumber }) { return nil }
            second = value
        }
        guard hour < 24, minute < 60, second < 60 else { return nil }
        return (hour, minute, second)
    }
}

/// An unsigned ASCII decimal of at most `maxDigits` digits: it cannot overflow by construction.
enum DecimalField {
    static func parse(_ text: some StringProtocol, maxDigits: Int) -> Int? {
        guard !text.isEmpty, text.utf8.count <= maxDigits else { return nil }
        var value = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }
}

/// Proleptic Gregorian calendar arithmetic on range-checked fields (years 1–9999).
enum CivilTime {
    static func seconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, offset: Int) -> Int64? {
        guard (1...9_999).contains(year), (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day) else {
            return nil
        }
        let days = Int64(daysFromCivil(year: year, month: month, day: day))
        return days * 86_400 + Int64(hour * 3600 + minute * 60 + second - offset)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Howard Hinnant's days_from_civil.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
