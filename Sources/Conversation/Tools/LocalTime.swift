import Glibc
import Realtime

/// A moment on the owner's wall clock: the civil date and time at a UTC offset, computed from Unix
/// seconds without Foundation (`CalendarDay`'s proleptic Gregorian calendar).
public struct LocalTime: Sendable, Equatable {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int
    /// 0 = Sunday ... 6 = Saturday.
    public var weekday: Int
    public var utcOffsetSeconds: Int
    /// The zone's abbreviation (e.g. "CET"), or "" when unknown.
    public var zoneName: String
    /// The local date as a day (what "since midnight" counts from).
    public var calendarDay: CalendarDay

    public init(epochSeconds: Int64, utcOffsetSeconds: Int, zoneName: String) {
        let local = epochSeconds + Int64(utcOffsetSeconds)
        let days = Int(local.floorDivided(by: 86_400))
        let secondOfDay = Int(local - Int64(days) * 86_400)
        hour = secondOfDay / 3600
        minute = secondOfDay % 3600 / 60
        second = secondOfDay % 60
        weekday = (days % 7 + 11) % 7  // 1970-01-01 was a Thursday (4)
        calendarDay = CalendarDay(daysSinceEpoch: days)
        (year, month, day) = calendarDay.components
        self.utcOffsetSeconds = utcOffsetSeconds
        self.zoneName = zoneName
    }

    /// `epochSeconds` in this machine's time zone (`TZ`, else `/etc/localtime`): the owner's, on the appliance.
    public static func system(epochSeconds: Int64) -> LocalTime {
        var seconds = time_t(epochSeconds)
        var fields = tm()
        guard localtime_r(&seconds, &fields) != nil else { return LocalTime(epochSeconds: epochSeconds, utcOffsetSeconds: 0, zoneName: "UTC") }
        let zone = fields.tm_zone.map { String(cString: $0) } ?? ""
        return LocalTime(epochSeconds: epochSeconds, utcOffsetSeconds: Int(fields.tm_gmtoff), zoneName: zone)
    }

    /// Now, in this machine's time zone.
    public static func systemNow() -> LocalTime {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return system(epochSeconds: Int64(now.tv_sec))
    }

    static let weekdayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

    public var weekdayName: String { Self.weekdayNames[weekday] }
    /// `2026-11-24`.
    public var date: String { "\(year)-\(Self.twoDigits(month))-\(Self.twoDigits(day))" }
    /// `14:05` (24-hour).
    public var time: String { "\(Self.twoDigits(hour)):\(Self.twoDigits(minute))" }
    /// `+01:00`.
    public var utcOffset: String {
        let magnitude = abs(utcOffsetSeconds) / 60
        return (utcOffsetSeconds < 0 ? "-" : "+") + Self.twoDigits(magnitude / 60) + ":" + Self.twoDigits(magnitude % 60)
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
