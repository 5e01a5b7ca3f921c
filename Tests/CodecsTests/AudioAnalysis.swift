/// Channel `channel` of interleaved samples.
func channelSamples(_ samples: [Int16], channels: Int, channel: Int = 0) -> [Int16] {
    stride(from: channel, to: samples.count, by: channels).map { samples[$0] }
}

/// Frequency estimated from rising zero crossings over the middle of the signal (edges skipped).
func estimatedFrequency(_ mono: [Int16], sampleRate: Int) -> Double {
    let start = mono.count / 10
    let end = mono.count - mono.count / 10
    var crossings = 0
    var first: Int?
    var last = 0
    for index in (start + 1)..<end where mono[index - 1] < 0 && mono[index] >= 0 {
        crossings += 1
        if first == nil { first = index }
        last = index
    }
    guard let first, crossings > 1 else { return 0 }
    return Double(crossings - 1) * Double(sampleRate) / Double(last - first)
}

func peak(_ samples: [Int16]) -> Int {
    samples.reduce(0) { max($0, abs(Int($1))) }
}

/// Deterministic junk with no MPEG sync bytes (0xFF) and no "OggS".
func junk(count: Int, seed: UInt32 = 12_345) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: state >> 24) & 0x7F
    }
}
