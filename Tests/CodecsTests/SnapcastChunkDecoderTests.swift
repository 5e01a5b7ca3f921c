import AudioCore
import Codecs
import Glibc
import TestSupport
import Testing

@Suite struct SnapcastChunkDecoderTests {
    /// snapserver 0.26's pcm header for 48000:16:2, as it sends it.
    static let waveHeader = hex("524946462400000057415645666d7420100000000100020080bb000000ee0200040010006461746100000000")
    /// snapserver 0.26's opus pseudo header: "SUPO" (0x4F505553 little endian), 48000, 16 bits, 2 channels.
    static let opusHeader = hex("5355504f80bb000010000200")

    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8).map { UInt8(($0 <= 57 ? $0 - 48 : $0 - 87)) }
        return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }

    static func decodeAll(_ decoder: SnapcastChunkDecoder, _ chunks: [[UInt8]]) throws -> (samples: [Int16], blocks: [Int]) {
        var samples: [Int16] = []
        var blocks: [Int] = []
        for chunk in chunks {
            var frames = 0
            try decoder.decode(chunk) {
                samples.append(contentsOf: $0.samples)
                frames += $0.frameCount
            }
            blocks.append(frames)
        }
        return (samples, blocks)
    }

    static func refusal(_ build: () throws -> Void) -> CodecError? {
        do {
            try build()
            return nil
        } catch {
            return error as? CodecError
        }
    }

    static func sine(frames: Int, channels: Int = 2, frequency: Double = 1_000, level: Double = 8_000) -> [Int16] {
        (0..<frames).flatMap { index in
            [Int16](repeating: Int16(level * sin(2 * Double.pi * frequency * Double(index) / 48_000)), count: channels)
        }
    }

    // MARK: pcm

    @Test func pcmHeaderGivesItsFormat() throws {
        let decoder = try SnapcastChunkDecoder(codec: "pcm", header: Self.waveHeader)
        #expect(decoder.codec == .pcm)
        #expect(decoder.format == AudioFormat(sampleRate: 48_000, channels: 2))
    }

    @Test func pcmFramesCutAtAChunkEndWaitForTheNextChunk() throws {
        let decoder = try SnapcastChunkDecoder(codec: "pcm", header: Self.waveHeader)
        let samples: [Int16] = [1, -1, 258, -258, 32_767, -32_768, 7, 8]
        let bytes = samples.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
        // 5 bytes: a frame and 1 byte over; 2 more: still short of a frame; then 9: 3 frames
        let (out, blocks) = try Self.decodeAll(decoder, [Array(bytes[0..<5]), Array(bytes[5..<7]), Array(bytes[7...])])
        #expect(out == samples)
        #expect(blocks == [1, 0, 3])
        #expect(decoder.pendingBytes == 0)
        try decoder.decode([1, 2, 3]) { _ in Issue.record("less than a frame came out") }
        #expect(decoder.pendingBytes == 3)
    }

    @Test(arguments: [
        (24, 1, CodecError.Kind.unsupported), (16, 3, .unsupported), (8, 1, .unsupported), (16, 0xFFFE, .unsupported)
    ])
    func pcmOtherThanSixteenBitIntegerIsRefused(bits: UInt8, tag: UInt16, kind: CodecError.Kind) {
        var header = Self.waveHeader
        header[34] = bits
        header[20] = UInt8(tag & 0xFF)
        header[21] = UInt8(tag >> 8)
        let error = Self.refusal { _ = try SnapcastChunkDecoder(codec: "pcm", header: header) }
        #expect(error?.kind == kind)
        #expect(error?.codec == "pcm")
    }

    @Test func hostilePCMHeadersAreTypedErrors() {
        var noChannels = Self.waveHeader
        noChannels[22] = 0
        var hugeChunk = Self.waveHeader
        hugeChunk[16...19] = [0xFF, 0xFF, 0xFF, 0x7F]
        var otherFirst = Self.waveHeader
        otherFirst.replaceSubrange(12..<16, with: Array("LIST".utf8))
        for header in [[], Array(Self.waveHeader[0..<20]), Array("RIFX".utf8) + Self.waveHeader[4...], noChannels, hugeChunk, otherFirst] {
            let error = Self.refusal { _ = try SnapcastChunkDecoder(codec: "pcm", header: header) }
            #expect(error?.kind == .invalidStream, "\(header.count) bytes: \(String(describing: error))")
        }
    }

    // MARK: opus

    @Test func opusHeaderIsTheSUPOPseudoHeader() throws {
        let decoder = try SnapcastChunkDecoder(codec: "opus", header: Self.opusHeader)
        #expect(decoder.format == AudioFormat(sampleRate: 48_000, channels: 2))
        let bigEndianMagic = Array("OPUS".utf8) + Self.opusHeader[4...]
        #expect(Self.refusal { _ = try SnapcastChunkDecoder(codec: "opus", header: bigEndianMagic) }?.kind == .invalidStream)
        #expect(Self.refusal { _ = try SnapcastChunkDecoder(codec: "opus", header: Array(Self.opusHeader[0..<11])) }?.kind == .invalidStream)
        var rate44 = Self.opusHeader
        rate44[4...5] = [0x44, 0xAC]
        let error = Self.refusal { _ = try SnapcastChunkDecoder(codec: "opus", header: rate44) }
        #expect(error?.kind == .unsupported)
        #expect(error?.description.contains("44100 Hz") == true)
        var sixChannels = Self.opusHeader
        sixChannels[10] = 6
        #expect(Self.refusal { _ = try SnapcastChunkDecoder(codec: "opus", header: sixChannels) }?.kind == .unsupported)
    }

    @Test func opusPacketsDecodeOneChunkEach() throws {
        let writer = try OggOpusWriter(channels: 2, bitrate: 128_000)
        var ogg = try writer.write(Self.sine(frames: 48_000))
        ogg += try writer.finish()
        var demuxer = OggDemuxer()
        demuxer.push(ogg)
        var packets: [[UInt8]] = []
        while let packet = demuxer.nextPacket() { packets.append(packet.data) }
        let decoder = try SnapcastChunkDecoder(codec: "opus", header: Self.opusHeader)
        let (samples, blocks) = try Self.decodeAll(decoder, Array(packets.dropFirst(2)))
        #expect(blocks.allSatisfy { $0 == OggOpusWriter.frameSize })
        let left = channelSamples(samples, channels: 2)
        #expect(abs(estimatedFrequency(left, sampleRate: 48_000) - 1_000) < 5)
        #expect(abs(peak(Array(left[4_800...])) - 8_000) < 800)
    }

    @Test func hostileOpusPacketsAreTypedErrors() throws {
        let decoder = try SnapcastChunkDecoder(codec: "opus", header: Self.opusHeader)
        // code 3 with zero frames: not a packet; six 20 ms CELT frames: 120 ms, past the 60 ms buffer
        let cases: [([UInt8], CodecError.Kind, String)] = [
            ([], .invalidStream, "Snapcast chunk"), ([0x03, 0x00], .library, "opus_multistream_decode"),
            ([0xFB, 0x06, 0, 0, 0, 0, 0, 0], .library, "opus_multistream_decode")
        ]
        for (chunk, kind, function) in cases {
            let error = Self.refusal { try decoder.decode(chunk) { _ in } }
            #expect(error?.kind == kind && error?.function == function, "\(chunk): \(String(describing: error))")
        }
    }

    // MARK: flac

    static func flacStream(seconds: Double = 1) throws -> (header: [UInt8], frames: [UInt8]) {
        let file = try MediaFixtures.ffmpegSine(
            "flac", encoder: ["-c:a", "flac", "-frame_size", "1152"], seconds: seconds, frequency: 1_000, sampleRate: 48_000)
        // metadata blocks: a 4-byte header each, the last one flagged
        var offset = 4
        while true {
            let last = file[offset] & 0x80 != 0
            offset += 4 + (Int(file[offset + 1]) << 16 | Int(file[offset + 2]) << 8 | Int(file[offset + 3]))
            if last { break }
        }
        return (Array(file[..<offset]), Array(file[offset...]))
    }

    @Test func flacChunksCutAnywhereGiveEveryFrameWithNothingLeft() throws {
        let (header, frames) = try Self.flacStream()
        let decoder = try SnapcastChunkDecoder(codec: "flac", header: header)
        #expect(decoder.format == AudioFormat(sampleRate: 48_000, channels: 2))
        #expect(decoder.pendingBytes == 0)
        let chunks = stride(from: 0, to: frames.count, by: 541).map { Array(frames[$0..<min($0 + 541, frames.count)]) }
        let (samples, _) = try Self.decodeAll(decoder, chunks)
        #expect(samples.count == 48_000 * 2, "the last frame too: no frame is held back for the next")
        #expect(decoder.pendingBytes == 0)
        #expect(abs(estimatedFrequency(channelSamples(samples, channels: 2), sampleRate: 48_000) - 1_000) < 2)
    }

    /// snapserver sends each frame in a chunk of its own: each comes out during its own call, none held back
    /// (its header ends in a PADDING block, which is skipped, not taken for the start of the frames).
    @Test func eachFLACFrameComesOutWithItsOwnChunk() throws {
        let (header, frames) = try Self.flacStream(seconds: 0.2)
        #expect(header[header.count - 8196] == 0x81, "the last block is PADDING (ffmpeg's 8 KiB, snapserver's 1234 bytes)")
        var starts = (0..<(frames.count - 1)).filter { frames[$0] == 0xFF && frames[$0 + 1] == 0xF8 }
        starts.append(frames.count)
        let decoder = try SnapcastChunkDecoder(codec: "flac", header: header)
        let (_, blocks) = try Self.decodeAll(decoder, zip(starts, starts.dropFirst()).map { Array(frames[$0..<$1]) })
        #expect(blocks == [Int](repeating: 1_152, count: 8) + [384])
        #expect(decoder.pendingBytes == 0)
    }

    @Test func hostileFLACHeadersAndChunksAreTypedErrors() throws {
        let (header, _) = try Self.flacStream(seconds: 0.1)
        var notLast = Array(header[0..<42])
        notLast[4] &= 0x7F
        var padding = header
        padding[4] = 0x01  // the first block is PADDING, not STREAMINFO
        for bad in [Array("fLaC".utf8), notLast, padding, Array("RIFF".utf8) + header[4...]] {
            let error = Self.refusal { _ = try SnapcastChunkDecoder(codec: "flac", header: bad) }
            #expect(error?.kind == .invalidStream && error?.codec == "flac", "\(String(describing: error))")
        }
        let decoder = try SnapcastChunkDecoder(codec: "flac", header: header)
        let huge = [UInt8](repeating: 0x5A, count: SnapcastChunkDecoder.maxChunkBytes + 1)
        #expect(Self.refusal { try decoder.decode(huge) { _ in } }?.kind == .invalidStream)
        // junk without a frame piles up to the bound, then is refused, never held without end
        var refused: CodecError?
        for _ in 0..<30 where refused == nil {
            refused = Self.refusal { try decoder.decode(junk(count: 100_000)) { _ in } }
        }
        #expect(refused?.kind == .invalidStream)
    }

    // MARK: other codecs

    @Test(arguments: ["null", "", "mp3", "PCM"])
    func otherCodecsAreRefusedByName(codec: String) {
        let error = Self.refusal { _ = try SnapcastChunkDecoder(codec: codec, header: Self.waveHeader) }
        #expect(error?.kind == .unsupported)
        #expect(error?.codec == codec)
        #expect(error?.description.contains("\"\(codec)\"") == true)
    }

    @Test func oggWithoutVorbisHeadersIsRefused() {
        let error = Self.refusal { _ = try SnapcastChunkDecoder(codec: "ogg", header: Self.opusHeader) }
        #expect(error?.kind == .invalidStream && error?.codec == "ogg")
    }
}
