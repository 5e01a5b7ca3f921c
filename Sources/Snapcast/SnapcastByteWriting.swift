extension [UInt8] {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    /// A `tv` (i32 sec, i32 usec ≥ 0, as snapcast normalises it); seconds beyond Int32 saturate.
    mutating func appendTimeval(nanoseconds: Int64) {
        let (seconds, remainder) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        let floored = remainder < 0 ? (seconds - 1, remainder + 1_000_000_000) : (seconds, remainder)
        let clamped = Int32(clamping: floored.0)
        appendLittleEndian(clamped)
        appendLittleEndian(Int64(clamped) == floored.0 ? Int32(floored.1 / 1_000) : 0)
    }

    /// A string or blob: u32 length, then the bytes.
    mutating func appendSized(_ bytes: some Collection<UInt8>) {
        appendLittleEndian(UInt32(clamping: bytes.count))
        append(contentsOf: bytes)
    }
}
