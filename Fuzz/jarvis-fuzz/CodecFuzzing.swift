import AudioCore
import Codecs

/// Bytes of a radio stream or a file on disk: Ogg pages and the Opus headers in them; AAC ADTS, Ogg
/// Vorbis and FLAC through their decoders (our framing and the libraries' parsing); WAV files.
enum CodecFuzzing {
    static func adts(_ bytes: [UInt8]) {
        keep(AudioCodec.sniff(bytes))
        decode(bytes, with: AACDecoder())
    }

    /// Native FLAC (our metadata reader, libFLAC's frames) and, from the same bytes, Ogg FLAC.
    static func flac(_ bytes: [UInt8]) {
        keep(AudioCodec.sniff(bytes))
        decode(bytes, with: FLACDecoder(container: .native))
        decode(bytes, with: FLACDecoder(container: .ogg))
    }

    /// An MP4 file read as a source reads it, jumping wherever the decoder asks (a bounded number of
    /// times); and the raw input as a `moov` payload.
    static func mp4(_ bytes: [UInt8]) {
        keep(try? MP4AudioTrack(moov: bytes))
        keep(try? MP4AudioTrack.fragmentSamples(moof: bytes, moofStart: 0))
        let decoder = MP4Decoder()
        var at = 1
        var jumps = 0
        var frames = 0
        while at < bytes.count {
            if let wanted = decoder.wantedOffset {
                jumps += 1
                guard jumps <= 8, wanted >= 0 else { break }
                decoder.seek(to: wanted)
                at = 1 + wanted
                continue
            }
            let end = min(at + Int(bytes[0] % 31) + 1, bytes.count)
            let refused = Array(bytes[at..<end]).withUnsafeBytes { raw in
                (try? decoder.decode(raw) { frames += $0.frameCount }) == nil
            }
            if refused { break }
            at = end
        }
        keep(frames)
    }

    /// MPEG-TS segments in fuzzer-chosen chunks: the tables, the audio PES, timed ID3 tags and their titles.
    static func ts(_ bytes: [UInt8]) {
        var demuxer = MPEGTSDemuxer()
        var audio = 0
        for chunk in chunks(bytes) {
            let refused = Array(chunk).withUnsafeBytes { raw in
                (try? demuxer.push(raw, audio: { audio += $1.count }, tag: { keep(ID3Tag.streamTitle($0)) })) == nil
            }
            if refused { break }
        }
        demuxer.endOfSegment { keep(ID3Tag.streamTitle($0)) }
        keep(ID3Tag.streamTitle(bytes))
        keep(audio)
    }

    static func vorbis(_ bytes: [UInt8]) {
        keep(AudioCodec.sniff(bytes))
        decode(bytes, with: OggVorbisDecoder())
    }

    /// Feeds `bytes` in fuzzer-chosen chunks until the decoder refuses the stream.
    private static func decode(_ bytes: [UInt8], with decoder: some StreamDecoder) {
        var frames = 0
        for chunk in chunks(bytes) {
            let refused = Array(chunk).withUnsafeBytes { raw in
                (try? decoder.decode(raw) { frames += $0.frameCount }) == nil
            }
            if refused { break }
        }
        let refused = (try? decoder.finish { frames += $0.frameCount }) == nil
        keep(refused)
        keep(frames)
    }

    static func ogg(_ bytes: [UInt8]) {
        var demuxer = OggDemuxer(maxPacketBytes: 1 << 16)
        for chunk in chunks(bytes) {
            demuxer.push(Array(chunk))
            while let packet = demuxer.nextPacket() {
                keep(try? OpusHead(parsing: packet.data))
                keep(try? VorbisComments(parsing: packet.data, after: VorbisComments.opusMagic))
            }
        }
        // The raw input as a header packet too, so header fields get fuzzed without page framing.
        keep(try? OpusHead(parsing: bytes))
        keep(try? VorbisComments(parsing: bytes, after: VorbisComments.opusMagic))
    }

    /// A Snapcast stream: byte 0 picks the codec, bytes 1-2 (LE) the CodecHeader's length, and the rest
    /// is cut into WireChunk payloads, so each decoder sees hostile headers and payloads.
    static func snapaudio(_ bytes: [UInt8]) {
        guard bytes.count >= 3 else { return }
        let codecs = SnapcastChunkDecoder.Codec.allCases.map(\.rawValue) + ["null"]
        let headerEnd = min(bytes.count, 3 + (Int(bytes[1]) | Int(bytes[2]) << 8))
        let codec = codecs[Int(bytes[0]) % codecs.count]
        guard let decoder = try? SnapcastChunkDecoder(codec: codec, header: Array(bytes[3..<headerEnd])) else { return }
        var frames = 0
        for chunk in chunks(Array(bytes[headerEnd...])) {
            if (try? decoder.decode(Array(chunk)) { frames += $0.frameCount }) == nil { break }
        }
        keep(decoder.pendingBytes)
        keep(frames)
    }

    static func wav(_ bytes: [UInt8]) {
        keep(try? WAVFile(bytes: bytes))
    }
}
