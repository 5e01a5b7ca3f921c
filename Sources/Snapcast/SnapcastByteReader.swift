/// Reads little-endian fields from a slice, front to back; every read returns nil instead of running past
/// the end, so no input can trap.
struct SnapcastByteReader {
    private(set) var remaining: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { remaining = bytes }

    mutating func u16() -> UInt16? {
        guard let bytes = take(2) else { return nil }
        return UInt16(bytes[bytes.startIndex]) | UInt16(bytes[bytes.startIndex + 1]) << 8
    }

    mutating func u32() -> UInt32? {
        guard let bytes = take(4) else { return nil }
        var value: UInt32 = 0
        for (shift, byte) in zip(stride(from: 0, to: 32, by: 8), bytes) { value |= UInt32(byte) << UInt32(shift) }
        return value
    }

    mutating func i32() -> Int32? { u32().map { Int32(bitPattern: $0) } }

    /// A `tv` (i32 sec, i32 usec) as nanoseconds. |sec| < 2^31 and |usec| < 2^31 keep the sum far inside
    /// Int64 (below 2.2e18), so this cannot overflow whatever the fields hold.
    mutating func timeval() -> Int64? {
        guard let seconds = i32(), let microseconds = i32() else { return nil }
        return Int64(seconds) * 1_000_000_000 + Int64(microseconds) * 1_000
    }

    /// The next `count` bytes.
    mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, count <= remaining.count else { return nil }
        let bytes = remaining.prefix(count)
        remaining = remaining.dropFirst(count)
        return bytes
    }
}
