/// RSS dates: `Tue, 10 Jun 2003 04:00:00 GMT`, `10 Jun 2003 04:00 +0200`, US zone names, two-digit years.
enum RFC822Date {
    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    static let zones: [String: Int] = [
        "gmt": 0, "ut": 0, "utc": 0, "z": 0, "est": -5 * 3600, "edt": -4 * 3600, "cst": -6 * 3600,
        "cdt": -5 * 3600, "mst": -7 * 3600, "mdt": -6 * 3600, "pst": -8 * 3600, "pdt": -7 * 3600,
    ]

    /// Seconds since 1970-01-01 UTC.
    static func parse(_ text: String) -> Int64? {
        var tokens = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }).map { $0.lowercased() }
        if let first = tokens.first, Int(first) == nil { tokens.removeFirst() }  // weekday
        guard tokens.count >= 4, let day = Int(tokens[0]),
              let month = months.firstIndex(where: { tokens[1].hasPrefix($0) }),
              var year = Int(tokens[2]) else { return nil }
        if year < 100 { year += year < 50 ? 2000 : 1900 }
        let clock = tokens[3].split(separator: ":").compactMap { Int($0) }
        guard clock.count >= 2, (1...31).contains(day) else { return nil }
        var offset = 0
        if tokens.count >= 5 {
            let zone = tokens[4]
            if let named = zones[zone] {
                offset = named
            } else if let sign = zone.first, sign == "+" || sign == "-", let value = Int(zone.dropFirst()), zone.count == 5 {
                offset = (value / 100 * 3600 + value % 100 * 60) * (sign == "-" ? -1 : 1)
            }
        }
        let days = daysFromCivil(year: year, month: month + 1, day: day)
        let seconds = clock[0] * 3600 + clock[1] * 60 + (clock.count > 2 ? clock[2] : 0)
        return Int64(days) * 86_400 + Int64(seconds - offset)
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
