import AudioCore

/// Finds the spoken answer in the speaker's output: the longest stretch of sound, where stretches are
/// separated by at least `gapMilliseconds` of silence (earcons are short, the answer is speech).
enum DemoAnswer {
    static let blockMilliseconds = 10
    /// Peak level below which a 10 ms block counts as silence (about -50 dBFS).
    static let silencePeak: Int32 = 100

    static func longestSound(in samples: [Int16], format: AudioFormat, gapMilliseconds: Int = 700) -> [Int16] {
        let blockFrames = format.frames(milliseconds: blockMilliseconds)
        let blockSamples = blockFrames * format.channels
        let blocks = samples.count / blockSamples
        let gapBlocks = gapMilliseconds / blockMilliseconds
        var best: Range<Int>?
        var start: Int?
        var lastLoud = -1
        func close() {
            guard let first = start else { return }
            let range = first..<(lastLoud + 1)
            if best == nil || range.count > best!.count { best = range }
            start = nil
        }
        for block in 0..<blocks {
            var peak: Int32 = 0
            for sample in samples[(block * blockSamples)..<((block + 1) * blockSamples)] { peak = max(peak, abs(Int32(sample))) }
            guard peak >= silencePeak else { continue }
            if start != nil, block - lastLoud > gapBlocks { close() }
            if start == nil { start = block }
            lastLoud = block
        }
        close()
        guard let best else { return [] }
        return Array(samples[(best.lowerBound * blockSamples)..<(best.upperBound * blockSamples)])
    }
}
