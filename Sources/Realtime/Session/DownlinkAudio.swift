/// Decodes `response.output_audio.delta` into PCM16 and hands it to the voice channel writer, counting the
/// samples received per assistant item (the clamp for `conversation.item.truncate`). One decode buffer is
/// reused; the sink must copy what it keeps.
public struct DownlinkAudio: ~Copyable {
    public typealias Sink = (_ itemID: String, _ samples: UnsafeBufferPointer<Int16>) -> Void

    private var scratch: UnsafeMutableRawBufferPointer
    private let sink: Sink
    public private(set) var currentItemID: String?
    /// 24 kHz samples received for `currentItemID`.
    public private(set) var samplesReceivedForItem = 0
    public private(set) var malformedDeltas = 0

    public init(initialCapacityBytes: Int = 96_000, sink: @escaping Sink) {
        scratch = .allocate(byteCount: max(2, initialCapacityBytes), alignment: MemoryLayout<Int16>.alignment)
        self.sink = sink
    }

    deinit { scratch.deallocate() }

    /// Milliseconds of audio received for the current item (what a truncate may at most claim).
    public var receivedMilliseconds: Int { samplesReceivedForItem * 1000 / 24_000 }

    /// Decodes and delivers one delta; returns the number of samples (0 for an undecodable delta).
    @discardableResult
    public mutating func handle(_ delta: AudioDelta) -> Int {
        let needed = Base64.decodedLength(of: delta.delta)
        if needed > scratch.count {
            scratch.deallocate()
            scratch = .allocate(byteCount: needed * 2, alignment: MemoryLayout<Int16>.alignment)
        }
        guard let bytes = Base64.decode(delta.delta, into: scratch), bytes % 2 == 0 else {
            malformedDeltas += 1
            return 0
        }
        if currentItemID != delta.itemID {
            currentItemID = delta.itemID
            samplesReceivedForItem = 0
        }
        let samples = UnsafeBufferPointer(start: scratch.baseAddress!.assumingMemoryBound(to: Int16.self), count: bytes / 2)
        samplesReceivedForItem += samples.count
        sink(delta.itemID, samples)
        return samples.count
    }
}
