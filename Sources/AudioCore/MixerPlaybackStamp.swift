import Synchronization

/// When the mixer's inputs are heard: right after the playback thread wrote a period, the device delay
/// (`delayFrames`, at CLOCK_MONOTONIC `nanoseconds`) and each input's `Mixer.renderedPosition` as of
/// that period. Frame `w` of an input's written stream leaves the speaker at
/// `nanoseconds + (delayFrames + w - position) / rate`, as long as the input does not run dry before it.
public struct MixerPlaybackStamp: Sendable, Equatable {
    public var nanoseconds: Int64
    public var delayFrames: Int
    public var position: Int

    public init(nanoseconds: Int64, delayFrames: Int, position: Int) {
        self.nanoseconds = nanoseconds
        self.delayFrames = delayFrames
        self.position = position
    }

    /// When frame `frame` of the input's written stream is heard, at `sampleRate`.
    public func heardNanoseconds(ofFrame frame: Int, sampleRate: Int) -> Int64 {
        let ahead = Int64(delayFrames + frame - position)
        return nanoseconds + ahead * 1_000_000_000 / Int64(max(1, sampleRate))
    }
}

/// The last `MixerPlaybackStamp` of every input, published by the playback thread and read by producers
/// as one consistent set: a sequence lock (the writer never waits; a reader retries while a write is
/// under way), so the playback thread stays free of locks.
final class MixerPlaybackStamps: Sendable {
    private let sequence = Atomic<Int>(0)
    private let nanoseconds = Atomic<Int64>(0)
    private let delayFrames = Atomic<Int>(0)
    private let positions: [StampedPosition]

    init(channels: Int) {
        positions = (0..<channels).map { _ in StampedPosition() }
    }

    /// The playback thread only. Realtime-safe.
    func publish(nanoseconds ns: Int64, delayFrames delay: Int, positions read: (Int) -> Int) {
        let next = sequence.load(ordering: .relaxed) + 1
        sequence.store(next, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        nanoseconds.store(ns, ordering: .relaxed)
        delayFrames.store(delay, ordering: .relaxed)
        for index in positions.indices { positions[index].value.store(read(index), ordering: .relaxed) }
        sequence.store(next + 1, ordering: .releasing)
    }

    /// nil before the first stamp (or, unlikely, when every try met a write under way).
    func read(_ index: Int) -> MixerPlaybackStamp? {
        for _ in 0..<64 {
            let before = sequence.load(ordering: .acquiring)
            guard before > 0 else { return nil }
            guard before & 1 == 0 else { continue }
            let stamp = MixerPlaybackStamp(
                nanoseconds: nanoseconds.load(ordering: .relaxed), delayFrames: delayFrames.load(ordering: .relaxed),
                position: positions[index].value.load(ordering: .relaxed))
            atomicMemoryFence(ordering: .acquiring)
            if sequence.load(ordering: .relaxed) == before { return stamp }
        }
        return nil
    }
}

/// One input's position in a `MixerPlaybackStamps` (an `Atomic` cannot live in an array itself).
private final class StampedPosition: Sendable {
    let value = Atomic<Int>(0)
}
