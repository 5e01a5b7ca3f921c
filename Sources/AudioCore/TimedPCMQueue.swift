/// Decoded audio waiting for its time: interleaved samples of one format, with the server-clock time
/// (nanoseconds) at which the first held frame is due. Appending a block whose timestamp does not
/// continue the held audio (a source switch, a server restart) starts over from that block. Bounded:
/// beyond `capacityFrames` the oldest frames go (they are late anyway).
public struct TimedPCMQueue: Sendable {
    public let format: AudioFormat
    public let capacityFrames: Int
    /// A block this far from where the held audio ends starts a new timeline.
    public let discontinuityNanoseconds: Int64
    private var samples: [Int16]
    private var head = 0  // first held frame (ring slot)
    public private(set) var frames = 0
    /// The timeline: frame `consumed` after the anchor is due at `anchorNanoseconds` plus its duration
    /// (counted from the anchor, so rounding never accumulates).
    private var anchorNanoseconds: Int64 = 0
    private var consumed = 0
    /// Blocks that started a new timeline (for the status and the journal).
    public private(set) var discontinuities = 0

    public init(format: AudioFormat, capacityFrames: Int, discontinuityNanoseconds: Int64 = 5_000_000) {
        precondition(capacityFrames > 0, "TimedPCMQueue capacity must be positive")
        self.format = format
        self.capacityFrames = capacityFrames
        self.discontinuityNanoseconds = discontinuityNanoseconds
        samples = Array(repeating: 0, count: capacityFrames * format.channels)
    }

    public var isEmpty: Bool { frames == 0 }

    /// Nanoseconds per `count` frames at the queue's rate.
    public func nanoseconds(frames count: Int) -> Int64 {
        Int64(count) * 1_000_000_000 / Int64(format.sampleRate)
    }

    /// Server time of the first held frame; meaningful when `frames > 0`.
    public var headNanoseconds: Int64 { anchorNanoseconds + nanoseconds(frames: consumed) }

    /// Where the held audio ends, in server time.
    public var tailNanoseconds: Int64 { headNanoseconds + nanoseconds(frames: frames) }

    /// Appends whole frames of `block`, the first due at server time `nanoseconds`.
    public mutating func append(_ block: UnsafeBufferPointer<Int16>, at nanoseconds: Int64) {
        let channels = format.channels
        let count = block.count / channels
        guard count > 0 else { return }
        if frames == 0 {
            anchor(at: nanoseconds)
        } else if abs(nanoseconds - tailNanoseconds) > discontinuityNanoseconds {
            discontinuities += 1
            removeAll()
            anchor(at: nanoseconds)
        }
        var from = 0
        if count > capacityFrames { from = count - capacityFrames }
        let overflow = frames + (count - from) - capacityFrames
        if overflow > 0 { drop(overflow) }
        if from > 0 { anchor(at: nanoseconds + self.nanoseconds(frames: from)) }
        var slot = (head + frames) % capacityFrames
        for frame in from..<count {
            for c in 0..<channels { samples[slot * channels + c] = block[frame * channels + c] }
            slot = slot + 1 == capacityFrames ? 0 : slot + 1
        }
        frames += count - from
    }

    /// Drops up to `count` frames from the front; the head's time moves with them.
    public mutating func drop(_ count: Int) {
        let n = min(max(0, count), frames)
        head = (head + n) % capacityFrames
        frames -= n
        consumed += n
    }

    private mutating func anchor(at nanoseconds: Int64) {
        anchorNanoseconds = nanoseconds
        consumed = 0
    }

    /// Copies up to `count` frames from the front into `output` (interleaved) and drops them; returns
    /// the frames copied.
    public mutating func read(_ count: Int, into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        let channels = format.channels
        let n = min(count, frames, output.count / channels)
        var slot = head
        for frame in 0..<n {
            for c in 0..<channels { output[frame * channels + c] = samples[slot * channels + c] }
            slot = slot + 1 == capacityFrames ? 0 : slot + 1
        }
        drop(n)
        return n
    }

    public mutating func removeAll() {
        head = 0
        frames = 0
    }
}
