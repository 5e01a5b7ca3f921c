import AudioCore

/// Decoded audio handed to a sink: interleaved Int16 frames in `format`. The buffer belongs to the
/// decoder and is only valid during the sink call (copy what you keep).
public struct PCMBlock {
    public let format: AudioFormat
    public let samples: UnsafeBufferPointer<Int16>

    init(format: AudioFormat, samples: UnsafeBufferPointer<Int16>) {
        self.format = format
        self.samples = samples
    }

    public var frameCount: Int { samples.count / format.channels }
}

/// A streaming decoder: feed it compressed bytes as they arrive (any chunking), get PCM blocks out.
/// Runs on the media thread (it may allocate on format changes, never per block in steady state).
public protocol StreamDecoder: AnyObject {
    /// The current output format, once the stream has told us (nil before the first header).
    var format: AudioFormat? { get }
    /// Feeds `bytes`; calls `sink` for each decoded block, in order.
    func decode(_ bytes: UnsafeRawBufferPointer, into sink: (PCMBlock) -> Void) throws(CodecError)
    /// The stream ended (a whole file was fed): decodes what the decoder held back waiting for more.
    func finish(into sink: (PCMBlock) -> Void) throws(CodecError)
    /// Forgets the stream (e.g. after a reconnect): the next bytes start a new one.
    func reset() throws(CodecError)
    /// The now-playing title the stream's own tags give (a chained Ogg stream's comments), if any.
    var streamTitle: String? { get }
    /// The file offset the decoder needs its next bytes from (an MP4 whose index is after its audio),
    /// or nil to go on with the bytes that follow.
    var wantedOffset: Int? { get }
    /// The bytes fed next start at `offset` in the file: a Range request for `wantedOffset`, or a
    /// podcast resumed part way.
    func seek(to offset: Int)
    /// The track's loudness (LUFS) its own tags give (ReplayGain, R128 in Vorbis comments), if any.
    var taggedLoudness: Double? { get }
}

extension StreamDecoder {
    public var streamTitle: String? { nil }
    public var wantedOffset: Int? { nil }
    public func seek(to offset: Int) {}
    public var taggedLoudness: Double? { nil }
    public func finish(into sink: (PCMBlock) -> Void) throws(CodecError) {}
}

extension StreamDecoder {
    /// Convenience for tests and whole-file use: decodes `bytes` and returns all samples with the last format.
    public func decodeAll(_ bytes: [UInt8]) throws(CodecError) -> (format: AudioFormat?, samples: [Int16]) {
        var samples: [Int16] = []
        var format: AudioFormat?
        var failure: CodecError?
        bytes.withUnsafeBytes { raw in
            do throws(CodecError) {
                let collect = { (block: PCMBlock) in
                    format = block.format
                    samples.append(contentsOf: block.samples)
                }
                try decode(raw, into: collect)
                try finish(into: collect)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return (format ?? self.format, samples)
    }
}
