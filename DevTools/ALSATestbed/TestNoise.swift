/// Deterministic pseudo-random samples (xorshift), for signals that correlate only with themselves.
public func testNoise(count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15, amplitude: Int16 = 8000) -> [Int16] {
    var state = seed
    return (0..<count).map { _ in
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return Int16(truncatingIfNeeded: Int64(state % UInt64(2 * Int(amplitude) + 1)) - Int64(amplitude))
    }
}
