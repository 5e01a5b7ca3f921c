import AudioCore

/// The audio format a Snapcast CodecHeader's payload declares, per codec (snapserver 0.26's encoders):
/// pcm a 44-byte RIFF/WAVE header, flac "fLaC" and its metadata, opus a 12-byte pseudo header. Only what
/// the decoders need is read; everything the decoders cannot play is refused here, by name.
enum SnapcastCodecHeader {
    /// The RIFF/WAVE header: its chunks are walked up to "data", so a writer that adds one (LIST) still parses.
    static func wave(_ header: [UInt8]) throws(CodecError) -> AudioFormat {
        func invalid(_ why: String) -> CodecError {
            CodecError(kind: .invalidStream, codec: "pcm", function: "RIFF/WAVE header", message: why)
        }
        guard header.count >= 12, header[0..<4].elementsEqual("RIFF".utf8), header[8..<12].elementsEqual("WAVE".utf8) else {
            throw invalid("no RIFF/WAVE marker")
        }
        var offset = 12
        while offset + 8 <= header.count {
            let id = header[offset..<(offset + 4)]
            let size = Int(le32(header, offset + 4))
            if id.elementsEqual("data".utf8) { break }
            guard size <= header.count - offset - 8 else { throw invalid("a chunk runs past the header") }
            if id.elementsEqual("fmt ".utf8) {
                guard size >= 16 else { throw invalid("fmt chunk of \(size) bytes") }
                return try waveFormat(header, at: offset + 8)
            }
            offset += 8 + size + size & 1
        }
        throw invalid("no fmt chunk")
    }

    private static func waveFormat(_ header: [UInt8], at offset: Int) throws(CodecError) -> AudioFormat {
        let tag = le16(header, offset), channels = Int(le16(header, offset + 2))
        let rate = Int(le32(header, offset + 4)), blockAlign = Int(le16(header, offset + 12)), bits = Int(le16(header, offset + 14))
        guard tag == 1, bits == 16 else {
            throw CodecError(
                kind: .unsupported, codec: "pcm", function: "RIFF/WAVE header",
                message: "format \(tag) with \(bits) bits per sample (only 16-bit integer PCM plays)")
        }
        guard (1...8).contains(channels), (1_000...384_000).contains(rate), blockAlign == channels * 2 else {
            throw CodecError(
                kind: .invalidStream, codec: "pcm", function: "RIFF/WAVE header",
                message: "\(channels) channels at \(rate) Hz, block align \(blockAlign)")
        }
        return AudioFormat(sampleRate: rate, channels: channels)
    }

    /// The opus pseudo header: magic 0x4F505553 ("SUPO" on the wire), rate, bits, channels, little endian.
    /// libopus decodes at 48 kHz here, which is what snapserver always sends.
    static func opus(_ header: [UInt8]) throws(CodecError) -> AudioFormat {
        guard header.count >= 12, le32(header, 0) == 0x4F50_5553 else {
            throw CodecError(kind: .invalidStream, codec: "opus", function: "Snapcast opus header", message: "no OPUS marker")
        }
        let rate = Int(le32(header, 4)), bits = Int(le16(header, 8)), channels = Int(le16(header, 10))
        guard rate == 48_000, bits == 16, (1...2).contains(channels) else {
            throw CodecError(
                kind: .unsupported, codec: "opus", function: "Snapcast opus header",
                message: "\(rate) Hz, \(bits) bits, \(channels) channels (plays 48000 Hz, 16 bits, 1 or 2 channels)")
        }
        return AudioFormat(sampleRate: rate, channels: channels)
    }

    /// The rate and channels of STREAMINFO, which must be the first block; FLACDecoder checks the rest.
    static func flac(_ header: [UInt8]) throws(CodecError) -> AudioFormat {
        func invalid(_ why: String) -> CodecError {
            CodecError(kind: .invalidStream, codec: "flac", function: "STREAMINFO", message: why)
        }
        guard header.count >= 42, header[0..<4].elementsEqual("fLaC".utf8) else { throw invalid("no fLaC marker and STREAMINFO") }
        guard header[4] & 0x7F == 0, header[5] == 0, header[6] == 0, header[7] == 34 else { throw invalid("the first block is not STREAMINFO") }
        let rate = Int(header[18]) << 12 | Int(header[19]) << 4 | Int(header[20]) >> 4
        let channels = Int(header[20] >> 1 & 0x07) + 1
        guard rate > 0 else { throw invalid("sample rate 0") }
        return AudioFormat(sampleRate: rate, channels: channels)
    }

    private static func le16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }

    private static func le32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }
}
