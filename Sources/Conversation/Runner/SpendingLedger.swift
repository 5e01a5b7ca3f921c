import Realtime

/// What the Realtime API has cost since start and since the owner's local midnight, kept from the engine's
/// running total as it grows.
public struct SpendingLedger: Sendable, Equatable {
    public private(set) var sinceStart: Double = 0
    /// Spent on `day`; a later day starts again from zero.
    private var spentOnDay: Double = 0
    private var day: CalendarDay?

    public init() {}

    /// The engine's total is now `total` on local day `today`: what it grew by counts for today.
    mutating func record(total: Double, today: CalendarDay) {
        if day != today {
            day = today
            spentOnDay = 0
        }
        spentOnDay += max(0, total - sinceStart)
        sinceStart = max(sinceStart, total)
    }

    /// Spent since midnight of local day `today` (zero once a new day has begun).
    public func spent(on today: CalendarDay) -> Double { day == today ? spentOnDay : 0 }
}
