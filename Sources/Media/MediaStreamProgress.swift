import Synchronization

/// Where one `MediaStreamSource` run stands, shared with the player (thread-safe): compressed bytes
/// read (as a file offset), the file's length when it is a finite file, and seconds decoded. The
/// ratio of bytes to decoded seconds turns a podcast position into a Range offset.
public final class MediaStreamProgress: Sendable {
    public struct Values: Sendable, Equatable {
        /// File offset just past the last byte read (includes a start offset).
        public var byteOffset = 0
        /// Total length of a finite file; nil for a live stream.
        public var fileLength: Int?
        /// Seconds of audio the decoder produced in this run.
        public var decodedSeconds = 0.0
        /// `byteOffset` when the run connected (its start offset), the base for `bytesPerSecond`.
        public var firstByteOffset: Int?
    }

    private let values = Mutex(Values())

    public init() {}

    public var current: Values { values.withLock { $0 } }

    func update(byteOffset: Int, fileLength: Int?) {
        values.withLock {
            if $0.firstByteOffset == nil { $0.firstByteOffset = byteOffset }
            $0.byteOffset = byteOffset
            $0.fileLength = fileLength
        }
    }

    /// The source jumped to `offset` for its decoder (an MP4's index); before any audio, the rate's base moves with it.
    func seeked(to offset: Int) {
        values.withLock {
            if $0.decodedSeconds == 0 { $0.firstByteOffset = offset }
            $0.byteOffset = offset
        }
    }

    func addDecoded(frames: Int, sampleRate: Int) {
        guard sampleRate > 0 else { return }
        values.withLock {
            $0.decodedSeconds += Double(frames) / Double(sampleRate)
        }
    }
}

extension MediaStreamProgress.Values {
    /// Compressed bytes per decoded second observed in this run (nil until a second has been decoded).
    public var bytesPerSecond: Double? {
        guard decodedSeconds >= 1, let first = firstByteOffset, byteOffset > first else { return nil }
        return Double(byteOffset - first) / decodedSeconds
    }
}
