/// A `MediaOutput` that levels the decoded media (`LoudnessLeveler`) before the output it wraps (the
/// mixer's media channel), so the volume and ducking, which the mixer applies, stay on top of it.
/// It takes at most 100 ms per write and holds what the output refused until the output takes it, so
/// nothing is leveled twice and back-pressure still reaches the stream source.
/// `@unchecked Sendable`: one stream writes at a time (`MediaOutput`).
public final class LevelingMediaOutput: MediaOutput, @unchecked Sendable {
    public let output: any MediaOutput
    public let target: LoudnessTarget
    private let outputChannels: Int
    private var leveler: LoudnessLeveler?
    private var scratch: [Int16] = []
    /// Leveled samples (`scratch[heldStart...]`) the output has not taken yet.
    private var heldStart = 0
    private var heldEnd = 0
    /// The next audio starts an item (after a flush or an item's end), with this tag if one came first.
    private var itemPending = true
    private var tagForNextItem: Double?
    private var lastTag: Double?

    /// - Parameter outputChannels: the device's; a mono stream on a stereo device is measured as it is heard.
    public init(output: any MediaOutput, target: LoudnessTarget, outputChannels: Int) {
        self.output = output
        self.target = target
        self.outputChannels = outputChannels
    }

    /// The follower's gain in dB (0 before any audio).
    public var gainDB: Double { leveler?.gainDB ?? 0 }

    public func setTaggedLoudness(_ loudness: Double) {
        if itemPending {
            tagForNextItem = loudness
        } else if loudness != lastTag {
            lastTag = loudness
            leveler?.tagArrived(loudness: loudness)
        }
    }

    public func write(_ samples: UnsafeBufferPointer<Int16>, format: AudioFormat) -> Int {
        guard writeHeld(format: format) else { return 0 }
        prepare(format)
        let frames = min(samples.count / format.channels, max(1, format.frames(milliseconds: 100)))
        let count = frames * format.channels
        if scratch.count < count { scratch = Array(repeating: 0, count: count) }
        scratch.withUnsafeMutableBufferPointer { buffer in
            let chunk = UnsafeMutableBufferPointer(rebasing: buffer[0..<count])
            _ = chunk.initialize(from: UnsafeBufferPointer(rebasing: samples[0..<count]))
            leveler?.configuration.target = target.lufs
            leveler?.process(chunk)
        }
        (heldStart, heldEnd) = (0, count)
        _ = writeHeld(format: format)
        return frames
    }

    /// Offers the held samples; true when none are left.
    private func writeHeld(format: AudioFormat) -> Bool {
        guard heldEnd > heldStart else { return true }
        let taken = scratch.withUnsafeBufferPointer { output.write(UnsafeBufferPointer(rebasing: $0[heldStart..<heldEnd]), format: format) }
        heldStart = min(heldEnd, heldStart + taken * format.channels)
        return heldEnd == heldStart
    }

    private func prepare(_ format: AudioFormat) {
        if leveler?.format != format {
            var fresh = LoudnessLeveler(
                format: format, dualMono: format.channels == 1 && outputChannels > 1,
                configuration: LoudnessLeveler.Configuration(target: target.lufs))
            // A format change, within a stream or between items, keeps the gain in force.
            if let previous = leveler { fresh.continueFrom(previous) }
            leveler = fresh
        }
        if itemPending {
            itemPending = false
            lastTag = tagForNextItem
            leveler?.startItem(taggedLoudness: tagForNextItem)
            tagForNextItem = nil
        }
    }

    public func finish() {
        output.finish()
        endItem()
    }

    private func endItem() {
        itemPending = true
        tagForNextItem = nil
        lastTag = nil
    }

    public func flush() {
        (heldStart, heldEnd) = (0, 0)
        output.flush()
        endItem()
    }

    public var queuedSeconds: Double {
        output.queuedSeconds + (leveler.map { Double((heldEnd - heldStart) / $0.format.channels) / Double($0.format.sampleRate) } ?? 0)
    }
}
