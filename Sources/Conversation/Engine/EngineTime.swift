import Basics

/// A monotonic instant in milliseconds, supplied by the caller with each event (a manual clock in tests,
/// `ContinuousClock` in the service).
public struct EngineTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    public static let zero = EngineTime(milliseconds: 0)

    public static func < (lhs: EngineTime, rhs: EngineTime) -> Bool { lhs.milliseconds < rhs.milliseconds }

    public static func + (lhs: EngineTime, rhs: Duration) -> EngineTime {
        EngineTime(milliseconds: lhs.milliseconds + rhs.wholeMilliseconds)
    }

    /// Milliseconds from `earlier` to `self`.
    public func milliseconds(since earlier: EngineTime) -> Int { Int(milliseconds - earlier.milliseconds) }

    public var description: String { "t+\(milliseconds)ms" }
}
