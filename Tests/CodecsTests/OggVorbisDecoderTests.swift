import AudioCore
import Codecs
import TestSupport
import Testing

@Suite struct OggVorbisDecoderTests {
    static func vorbis(seconds: Double = 2, frequency: Int = 440, sampleRate: Int = 44_100, channels: Int = 2, title: String? = nil)
        throws -> [UInt8]
    {
        try MediaFixtures.ffmpegSine(
            "ogg", encoder: ["-c:a", "libvorbis", "-q:a", "4"] + (title.map { ["-metadata", "title=\($0)"] } ?? []),
            seconds: seconds, frequency: frequency, sampleRate: sampleRate, channels: channels)
    }

    @Test func decodesAVorbisSineAtItsRateLengthAndFrequency() throws {
        let ogg = try Self.vorbis(title: "Kitchen Tone")
        #expect(AudioCodec.sniff(ogg) == .oggVorbis)
        let decoder = OggVorbisDecoder()
        let (format, samples) = try decoder.decodeAll(ogg)
        #expect(format == AudioFormat(sampleRate: 44_100, channels: 2))
        let frames = samples.count / 2
        #expect(frames >= 88_200 - 2_048 && frames <= 88_200 + 2_048, "decoded \(frames) frames")
        let left = channelSamples(samples, channels: 2)
        #expect(abs(estimatedFrequency(left, sampleRate: 44_100) - 440) < 2)
        #expect(peak(left) > 12_000 && peak(left) < 20_000)
        #expect(decoder.streamTitle == "Kitchen Tone")
        #expect(decoder.corruptPackets == 0)
    }

    @Test(arguments: [1, 7, 417, 4_096])
    func anyChunkingGivesTheSameSamples(chunk: Int) throws {
        let ogg = try Self.vorbis(seconds: 1)
        let whole = try OggVorbisDecoder().decodeAll(ogg).samples
        let decoder = OggVorbisDecoder()
        var pieces: [Int16] = []
        for start in stride(from: 0, to: ogg.count, by: chunk) {
            try Array(ogg[start..<min(start + chunk, ogg.count)]).withUnsafeBytes { raw in
                try decoder.decode(raw) { pieces.append(contentsOf: $0.samples) }
            }
        }
        #expect(pieces == whole)
    }

    @Test func aChainedStreamStartsAFreshDecoderWithItsTitle() throws {
        let first = try Self.vorbis(seconds: 1, frequency: 440, title: "One")
        let second = try Self.vorbis(seconds: 1, frequency: 660, sampleRate: 48_000, channels: 1, title: "Two")
        let decoder = OggVorbisDecoder()
        let (format, samples) = try decoder.decodeAll(first + second)
        #expect(decoder.streamsStarted == 2)
        #expect(format == AudioFormat(sampleRate: 48_000, channels: 1))
        #expect(decoder.streamTitle == "Two")
        #expect(samples.count > 44_100 * 2)
    }

    @Test func anOpusDecoderNamesVorbisItCannotPlay() throws {
        let ogg = try Self.vorbis(seconds: 1)
        #expect {
            try OggOpusDecoder().decodeAll(ogg)
        } throws: { error in
            (error as? CodecError)?.description.contains("Ogg Vorbis") == true
        }
    }
}
