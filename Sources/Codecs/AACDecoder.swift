import AudioCore

/// AAC in ADTS (a radio stream or an .aac file): our `ADTSFramer` and libfaad, interleaved Int16 out at
/// the stream's output rate (twice the core rate for HE-AAC) and channel count (at most two). A frame
/// libfaad rejects is counted and skipped, as one bad Opus packet is; a stream none of whose first
/// frames decode is refused with libfaad's reason, so it never plays as silence.
public final class AACDecoder: StreamDecoder {
    /// Rejected frames in a row, before any decoded, that make the stream undecodable.
    public static let rejectedFramesBeforeGivingUp = 32

    private var framer = ADTSFramer()
    private var faad: FAADHandle?
    private var decodedAny = false
    private var rejectedInARow = 0
    public private(set) var format: AudioFormat?
    /// Frames libfaad rejected (skipped).
    public private(set) var corruptFrames = 0

    public init() {}

    public func decode(_ bytes: UnsafeRawBufferPointer, into sink: (PCMBlock) -> Void) throws(CodecError) {
        framer.push(bytes)
        while let frame = framer.nextFrame() {
            var failure: CodecError?
            frame.withUnsafeBytes { raw in
                do throws(CodecError) { try handle(raw, sink) } catch { failure = error }
            }
            if let failure { throw failure }
        }
    }

    public func reset() throws(CodecError) {
        framer.reset()
        faad = nil
        format = nil
        decodedAny = false
        rejectedInARow = 0
    }

    private func handle(_ frame: UnsafeRawBufferPointer, _ sink: (PCMBlock) -> Void) throws(CodecError) {
        if faad == nil { faad = try FAADHandle(firstFrame: frame) }
        switch faad!.decode(frame) {
        case .rejected(let reason):
            corruptFrames += 1
            rejectedInARow += 1
            if !decodedAny, rejectedInARow >= Self.rejectedFramesBeforeGivingUp {
                throw CodecError(kind: .unsupported, codec: "aac", function: "NeAACDecDecode", message: reason)
            }
        case .decoded(let samples, let frameFormat):
            rejectedInARow = 0
            guard !samples.isEmpty else { return }
            decodedAny = true
            format = frameFormat
            sink(PCMBlock(format: frameFormat, samples: samples))
        }
    }
}
