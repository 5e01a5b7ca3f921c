/// Request ids as snapclient hands them out: 1...9999, wrapping back to 1 (0 means "answers nothing"
/// in `refersTo`, so it is never used).
public struct SnapcastRequestIDs: Sendable, Hashable {
    public static let limit: UInt16 = 10_000

    private var last: UInt16 = 0

    public init() {}

    public mutating func next() -> UInt16 {
        last = last + 1 >= Self.limit ? 1 : last + 1
        return last
    }
}
