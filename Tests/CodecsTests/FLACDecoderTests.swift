import AudioCore
import Codecs
import TestSupport
import Testing

@Suite struct FLACDecoderTests {
    static func flac(
        ogg: Bool = false, seconds: Double = 2, frequency: Int = 440, sampleRate: Int = 44_100, channels: Int = 2,
        title: String? = nil, extra: [String] = []
    ) throws -> [UInt8] {
        try MediaFixtures.ffmpegSine(
            ogg ? "oga" : "flac",
            encoder: ["-c:a", "flac"] + (ogg ? ["-f", "ogg"] : []) + (title.map { ["-metadata", "title=\($0)"] } ?? []) + extra,
            seconds: seconds, frequency: frequency, sampleRate: sampleRate, channels: channels)
    }

    @Test(arguments: [false, true])
    func decodesAFLACSineLosslesslyAtItsRateAndLength(ogg: Bool) throws {
        let flac = try Self.flac(ogg: ogg, title: "Kitchen Tone")
        #expect(AudioCodec.sniff(flac) == (ogg ? .oggFLAC : .flac))
        let decoder = FLACDecoder(container: ogg ? .ogg : .native)
        let (format, samples) = try decoder.decodeAll(flac)
        #expect(format == AudioFormat(sampleRate: 44_100, channels: 2))
        #expect(samples.count == 88_200 * 2, "lossless: every frame, no priming")
        let reference = try MediaFixtures.ffmpegSine("s16le", encoder: ["-f", "s16le"], seconds: 2, frequency: 440)
        let expected = stride(from: 0, to: reference.count - 1, by: 2).map {
            Int16(bitPattern: UInt16(reference[$0]) | UInt16(reference[$0 + 1]) << 8)
        }
        #expect(samples == expected, "bit-exact against ffmpeg's own PCM")
        #expect(decoder.streamTitle == "Kitchen Tone")
    }

    @Test(arguments: [(false, 1), (false, 417), (false, 4_096), (true, 7), (true, 4_096)])
    func anyChunkingGivesTheSameSamples(ogg: Bool, chunk: Int) throws {
        let flac = try Self.flac(ogg: ogg, seconds: 1)
        let whole = try FLACDecoder(container: ogg ? .ogg : .native).decodeAll(flac).samples
        let decoder = FLACDecoder(container: ogg ? .ogg : .native)
        var pieces: [Int16] = []
        for start in stride(from: 0, to: flac.count, by: chunk) {
            try Array(flac[start..<min(start + chunk, flac.count)]).withUnsafeBytes { raw in
                try decoder.decode(raw) { pieces.append(contentsOf: $0.samples) }
            }
        }
        try decoder.finish { pieces.append(contentsOf: $0.samples) }
        #expect(pieces == whole)
    }

    @Test func twentyFourBitMonoAtFortyEightKilohertzKeepsItsTopBits() throws {
        let flac = try Self.flac(seconds: 1, frequency: 300, sampleRate: 48_000, channels: 1, extra: ["-sample_fmt", "s32"])
        let (format, samples) = try FLACDecoder(container: .native).decodeAll(flac)
        #expect(format == AudioFormat(sampleRate: 48_000, channels: 1))
        #expect(abs(estimatedFrequency(samples, sampleRate: 48_000) - 300) < 2)
        #expect(peak(samples) > 15_000 && peak(samples) < 17_000)
    }

    @Test func aPictureBlockIsSkippedNotBuffered() throws {
        let flac = try Self.flac(seconds: 1)
        // a 300 KB PICTURE block (type 6) after STREAMINFO (4 + 4 + 34 bytes in), which passes its last flag on
        var withPicture = Array(flac[..<42])
        withPicture[4] &= 0x7F
        let picture = 300_000
        withPicture += [6 | (flac[4] & 0x80), UInt8(picture >> 16), UInt8((picture >> 8) & 0xFF), UInt8(picture & 0xFF)]
        withPicture += [UInt8](repeating: 0x5A, count: picture)
        withPicture += flac[42...]
        let plain = try FLACDecoder(container: .native).decodeAll(flac).samples
        #expect(try FLACDecoder(container: .native).decodeAll(withPicture).samples == plain)
    }

    @Test func notFLACIsRefusedByName() throws {
        #expect {
            try FLACDecoder(container: .native).decodeAll(Array("RIFF....WAVEfmt ".utf8))
        } throws: { error in
            (error as? CodecError)?.description == "flac stream is invalid (stream marker): no fLaC marker"
        }
    }
}
