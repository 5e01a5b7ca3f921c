/// The front of a native FLAC stream ("fLaC" and its metadata blocks), read by us so libFLAC is only
/// ever given what it needs whole: the marker and STREAMINFO, then frames. Other blocks (pictures,
/// seek tables, padding) are skipped as they arrive, never buffered; the Vorbis comment block gives the
/// titles. Ours because libFLAC pulls its input and a stream must not wait for a picture to finish.
struct FLACStreamHeader {
    enum Step {
        /// Needs more bytes.
        case needMore
        /// The metadata is over: give libFLAC `prefix`; the stream's frames start `consumed` bytes in.
        case done(prefix: [UInt8], maxFrameBytes: Int)
    }

    static let maxCommentBytes = 1 << 16
    private(set) var comments: VorbisComments?
    private var streamInfo: [UInt8]?
    private var skipRemaining = 0
    private var sawMarker = false
    /// The last block is being skipped: the metadata is over once it is.
    private var lastSkipping = false
    private var pending: [UInt8] = []

    /// Takes bytes; returns how many it used and whether the metadata is over.
    mutating func take(_ bytes: UnsafeRawBufferPointer) throws(CodecError) -> (used: Int, step: Step) {
        var used = 0
        while used < bytes.count {
            if skipRemaining > 0 {
                let n = min(skipRemaining, bytes.count - used)
                skipRemaining -= n
                used += n
                // A last block that is skipped (PADDING) ends the metadata only after its body: its bytes
                // are not frames (libFLAC would hunt for a frame through them and hold the stream back).
                if skipRemaining == 0, lastSkipping { return (used, try finished()) }
                continue
            }
            pending.append(bytes[used])
            used += 1
            if let step = try parsePending() { return (used, step) }
        }
        return (used, .needMore)
    }

    /// Acts on `pending` once it holds a whole marker, block header or kept block.
    private mutating func parsePending() throws(CodecError) -> Step? {
        if !sawMarker {
            guard pending.count == 4 else { return nil }
            guard pending == Array("fLaC".utf8) else {
                throw CodecError(kind: .invalidStream, codec: "flac", function: "stream marker", message: "no fLaC marker")
            }
            sawMarker = true
            pending.removeAll()
            return nil
        }
        guard pending.count >= 4 else { return nil }
        let last = pending[0] & 0x80 != 0, type = pending[0] & 0x7F
        let length = Int(pending[1]) << 16 | Int(pending[2]) << 8 | Int(pending[3])
        let keep = (type == 0 && length == 34) || (type == 4 && length <= Self.maxCommentBytes)
        if keep {
            guard pending.count == 4 + length else { return nil }
            let body = Array(pending[4...])
            if type == 0 { streamInfo = body } else { comments = try? VorbisComments(parsing: body, after: []) }
        } else {
            if type == 0 {
                throw CodecError(kind: .invalidStream, codec: "flac", function: "STREAMINFO", message: "\(length) bytes, not 34")
            }
            skipRemaining = length
        }
        pending.removeAll()
        guard last else { return nil }
        if skipRemaining > 0 {
            lastSkipping = true
            return nil
        }
        return try finished()
    }

    private func finished() throws(CodecError) -> Step {
        guard let streamInfo else {
            throw CodecError(kind: .invalidStream, codec: "flac", function: "STREAMINFO", message: "the stream has none")
        }
        let maxFrameBytes = Int(streamInfo[7]) << 16 | Int(streamInfo[8]) << 8 | Int(streamInfo[9])
        return .done(prefix: Array("fLaC".utf8) + [0x80, 0, 0, 34] + streamInfo, maxFrameBytes: maxFrameBytes)
    }
}
