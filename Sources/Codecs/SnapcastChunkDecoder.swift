import AudioCore

/// Decodes the audio of a Snapcast stream (snapserver 0.26): built from the CodecHeader (`codec` and its
/// payload), then given each WireChunk's payload in order; interleaved Int16 PCM out.
///
/// Each chunk's samples come out during its own `decode` call, and they span exactly the step to the next
/// chunk's timestamp, so a chunk's timestamp is the time of the first sample that call puts out: no frame
/// is held back (checked against snapserver 0.26 for all four codecs).
/// - pcm: raw S16LE frames; bytes of a frame cut at a chunk's end wait for the next chunk (`pendingBytes`).
/// - flac: the header and the chunks are one native FLAC stream; a chunk holds whole frames, each decoded
///   as it arrives (0 frames of lag). A frame cut short anyway waits for the next chunk (`pendingBytes`).
/// - opus: each chunk is one raw Opus packet, decoded at 48 kHz.
/// - ogg: Vorbis in Ogg, the header pages then the chunks as one stream; snapserver steps its timestamps
///   by the frames Vorbis puts out for each chunk (its granule positions), not by what went in.
///
/// After a thrown error the decoder's state is undefined: build a new one (as on a new CodecHeader).
public final class SnapcastChunkDecoder {
    /// The codecs a CodecHeader can name that this decoder plays (snapserver also sends "null").
    public enum Codec: String, Sendable, CaseIterable {
        case pcm, flac, opus, ogg
    }

    /// snapserver's message size limit (`msg::max_size`): a larger chunk, or that many bytes a FLAC stream
    /// holds without a frame, is not a stream.
    public static let maxChunkBytes = 1_000_000
    /// Frames an Opus packet may carry here (60 ms at 48 kHz, snapserver's longest).
    public static let maxOpusFrames = 2_880

    public let codec: Codec
    /// The format the header declares; blocks carry their own (an Ogg stream may change it).
    public let format: AudioFormat
    private let backend: Backend

    private enum Backend {
        case pcm(PCMChunkReader)
        case flac(FLACDecoder)
        case opus(OpusMultistreamDecoderHandle, UnsafeMutableBufferPointer<Int16>)
        case ogg(OggVorbisDecoder)
    }

    public init(codec name: String, header: [UInt8]) throws(CodecError) {
        guard let codec = Codec(rawValue: name) else {
            throw CodecError(
                kind: .unsupported, codec: name, function: "Snapcast CodecHeader",
                message: "codec \"\(name.prefix(32))\" (plays \(Codec.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        self.codec = codec
        switch codec {
        case .pcm:
            format = try SnapcastCodecHeader.wave(header)
            backend = .pcm(PCMChunkReader(format: format))
        case .flac:
            format = try SnapcastCodecHeader.flac(header)
            let decoder = FLACDecoder(container: .native, wholeFrames: true)
            try Self.withBytes(header) { raw throws(CodecError) in try decoder.decode(raw) { _ in } }
            guard decoder.headerComplete else {
                throw CodecError(kind: .invalidStream, codec: "flac", function: "Snapcast CodecHeader", message: "the metadata does not end")
            }
            backend = .flac(decoder)
        case .opus:
            format = try SnapcastCodecHeader.opus(header)
            let decoder = try OpusMultistreamDecoderHandle(
                channels: format.channels, streams: 1, coupledStreams: format.channels - 1, mapping: format.channels == 1 ? [0] : [0, 1])
            let output = UnsafeMutableBufferPointer<Int16>.allocate(capacity: Self.maxOpusFrames * format.channels)
            output.initialize(repeating: 0)
            backend = .opus(decoder, output)
        case .ogg:
            let decoder = OggVorbisDecoder()
            try Self.withBytes(header) { raw throws(CodecError) in try decoder.decode(raw) { _ in } }
            guard let declared = decoder.format else {
                throw CodecError(kind: .invalidStream, codec: "ogg", function: "Snapcast CodecHeader", message: "no Vorbis headers")
            }
            format = declared
            backend = .ogg(decoder)
        }
    }

    deinit {
        if case .opus(_, let output) = backend { output.deallocate() }
    }

    /// Bytes fed that have not come out as audio yet: part of a PCM frame, a FLAC frame cut short.
    public var pendingBytes: Int {
        switch backend {
        case .pcm(let reader): reader.pendingBytes
        case .flac(let decoder): decoder.pendingBytes
        case .opus, .ogg: 0
        }
    }

    /// Decodes one WireChunk's payload; calls `sink` for each block, in order (none for an incomplete frame).
    public func decode(_ chunk: UnsafeRawBufferPointer, into sink: (PCMBlock) -> Void) throws(CodecError) {
        guard chunk.count <= Self.maxChunkBytes else {
            throw CodecError(kind: .invalidStream, codec: codec.rawValue, function: "Snapcast chunk", message: "\(chunk.count) bytes")
        }
        switch backend {
        case .pcm(let reader):
            reader.decode(chunk, into: sink)
        case .flac(let decoder):
            try decoder.decode(chunk, into: sink)
            guard decoder.pendingBytes <= Self.maxChunkBytes else {
                throw CodecError(
                    kind: .invalidStream, codec: "flac", function: "Snapcast chunk",
                    message: "\(decoder.pendingBytes) bytes without a whole frame")
            }
        case .opus(let decoder, let output):
            // snapserver never sends an empty chunk; to libopus it would mean a lost packet.
            guard !chunk.isEmpty else {
                throw CodecError(kind: .invalidStream, codec: "opus", function: "Snapcast chunk", message: "an empty packet")
            }
            let frames = try decoder.decode(chunk, into: output)
            guard frames > 0 else { return }
            sink(PCMBlock(format: format, samples: UnsafeBufferPointer(rebasing: output[0..<(frames * format.channels)])))
        case .ogg(let decoder):
            try decoder.decode(chunk, into: sink)
        }
    }

    /// `decode` for a chunk held in an array.
    public func decode(_ chunk: [UInt8], into sink: (PCMBlock) -> Void) throws(CodecError) {
        try Self.withBytes(chunk) { raw throws(CodecError) in try decode(raw, into: sink) }
    }

    /// `withUnsafeBytes` for a body that throws CodecError (the standard one only rethrows `any Error`).
    private static func withBytes(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(CodecError) -> Void) throws(CodecError) {
        var failure: CodecError?
        bytes.withUnsafeBytes { raw in
            do throws(CodecError) { try body(raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }
}
