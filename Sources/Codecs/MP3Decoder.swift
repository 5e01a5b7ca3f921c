import AudioCore

/// MP3 (MPEG 1/2/2.5 layer I-III) over libmpg123's feed API: bytes in whatever chunks the network
/// delivers, interleaved Int16 out at the stream's own rate and channel count. ID3v2 tags are skipped,
/// junk between frames is resynced over (up to 64 KiB), and format changes mid-stream (a radio's
/// next track at another rate) are reported through `PCMBlock.format`.
public final class MP3Decoder: StreamDecoder {
    private var mpg123: MPG123Handle
    private let output: UnsafeMutableRawBufferPointer
    public private(set) var format: AudioFormat?
    /// Compressed bytes fed since init or the last reset.
    public private(set) var bytesFed = 0

    public init() throws(CodecError) {
        mpg123 = try MPG123Handle()
        output = .allocate(byteCount: mpg123.outputBlockBytes, alignment: MemoryLayout<Int16>.alignment)
    }

    deinit {
        output.deallocate()
    }

    public func decode(_ bytes: UnsafeRawBufferPointer, into sink: (PCMBlock) -> Void) throws(CodecError) {
        try mpg123.feed(bytes)
        bytesFed += bytes.count
        while true {
            switch try mpg123.read(into: output) {
            case .needMore:
                return
            case .newFormat(let newFormat):
                format = newFormat
            case .decoded(let byteCount):
                guard byteCount > 0, let format else { continue }
                let samples = UnsafeBufferPointer(
                    start: output.baseAddress!.assumingMemoryBound(to: Int16.self),
                    count: byteCount / MemoryLayout<Int16>.size)
                sink(PCMBlock(format: format, samples: samples))
            }
        }
    }

    public func reset() throws(CodecError) {
        // A fresh handle: reopening the feed keeps the synthesis filter history of the old stream.
        mpg123 = try MPG123Handle()
        format = nil
        bytesFed = 0
    }
}
