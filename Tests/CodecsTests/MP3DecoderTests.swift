import AudioCore
import Codecs
import TestSupport
import Testing

@Suite struct MP3DecoderTests {
    @Test func decodesAGeneratedSineAtItsRateLengthAndFrequency() throws {
        let mp3 = try MediaFixtures.sineMP3(seconds: 2, frequency: 440)
        let decoder = try MP3Decoder()
        let (format, samples) = try decoder.decodeAll(mp3)
        #expect(format == AudioFormat(sampleRate: 44_100, channels: 2))
        let frames = samples.count / 2
        // sox's LAME output has no info frame, so the encoder delay and padding stay (under two frames).
        #expect(frames >= 88_200 && frames <= 88_200 + 2_304, "decoded \(frames) frames")
        let left = channelSamples(samples, channels: 2)
        #expect(abs(estimatedFrequency(left, sampleRate: 44_100) - 440) < 2)
        #expect(peak(left) > 12_000 && peak(left) < 20_000)
        #expect(decoder.bytesFed == mp3.count)
    }

    @Test(arguments: [1, 7, 417, 4_096])
    func anyChunkingGivesTheSameSamples(chunk: Int) throws {
        let mp3 = try MediaFixtures.sineMP3(seconds: 1, frequency: 440)
        let whole = try MP3Decoder().decodeAll(mp3).samples
        let decoder = try MP3Decoder()
        var pieces: [Int16] = []
        for start in stride(from: 0, to: mp3.count, by: chunk) {
            let piece = Array(mp3[start..<min(start + chunk, mp3.count)])
            try piece.withUnsafeBytes { raw in
                try decoder.decode(raw) { pieces.append(contentsOf: $0.samples) }
            }
        }
        #expect(pieces == whole)
    }

    @Test func monoLowRateStreamReportsItsFormat() throws {
        let mp3 = try MediaFixtures.sineMP3(seconds: 1, frequency: 300, sampleRate: 22_050, channels: 1, kbps: 64)
        let (format, samples) = try MP3Decoder().decodeAll(mp3)
        #expect(format == AudioFormat(sampleRate: 22_050, channels: 1))
        #expect(abs(estimatedFrequency(samples, sampleRate: 22_050) - 300) < 2)
    }

    @Test func resyncsOverGarbageBeforeAndInsideTheStream() throws {
        let mp3 = try MediaFixtures.sineMP3(seconds: 2, frequency: 440)
        let middle = mp3.count / 2
        let damaged = junk(count: 3_000) + Array(mp3[..<middle]) + junk(count: 2_000, seed: 7) + Array(mp3[middle...])
        let decoder = try MP3Decoder()
        let (format, samples) = try decoder.decodeAll(damaged)
        #expect(format == AudioFormat(sampleRate: 44_100, channels: 2))
        let frames = samples.count / 2
        #expect(frames > 80_000 && frames < 92_000, "decoded \(frames) frames")
        #expect(abs(estimatedFrequency(channelSamples(samples, channels: 2), sampleRate: 44_100) - 440) < 3)
    }

    @Test func joiningAStreamMidFrameStillDecodes() throws {
        let mp3 = try MediaFixtures.sineMP3(seconds: 2, frequency: 440)
        let (_, samples) = try MP3Decoder().decodeAll(Array(mp3[1_001...]))
        #expect(samples.count / 2 > 80_000)
    }

    @Test func skipsAnID3v2Tag() throws {
        let mp3 = try MediaFixtures.sineMP3(seconds: 1, frequency: 440)
        let payload = 1_500
        var tag: [UInt8] = Array("ID3".utf8) + [3, 0, 0]
        tag += [UInt8((payload >> 21) & 0x7F), UInt8((payload >> 14) & 0x7F), UInt8((payload >> 7) & 0x7F), UInt8(payload & 0x7F)]
        tag += Array("TIT2".utf8) + [0, 0, 0, 10, 0, 0, 0] + Array("Song Name".utf8)
        tag += [UInt8](repeating: 0, count: payload - (tag.count - 10))
        let plain = try MP3Decoder().decodeAll(mp3).samples
        let tagged = try MP3Decoder().decodeAll(tag + mp3).samples
        #expect(!plain.isEmpty)
        #expect(tagged == plain)
    }

    @Test func reportsAFormatChangeMidStream() throws {
        let first = try MediaFixtures.sineMP3(seconds: 1, frequency: 440)
        let second = try MediaFixtures.sineMP3(seconds: 1, frequency: 300, sampleRate: 22_050, channels: 1, kbps: 64)
        let decoder = try MP3Decoder()
        var formats: [AudioFormat] = []
        var framesPerFormat: [AudioFormat: Int] = [:]
        try (first + second).withUnsafeBytes { raw in
            try decoder.decode(raw) { block in
                if formats.last != block.format { formats.append(block.format) }
                framesPerFormat[block.format, default: 0] += block.frameCount
            }
        }
        #expect(formats == [AudioFormat(sampleRate: 44_100, channels: 2), AudioFormat(sampleRate: 22_050, channels: 1)])
        #expect(framesPerFormat[AudioFormat(sampleRate: 22_050, channels: 1), default: 0] > 15_000)
    }

    @Test func resetStartsAFreshStream() throws {
        let mp3 = try MediaFixtures.sineMP3(seconds: 1, frequency: 440)
        let decoder = try MP3Decoder()
        _ = try decoder.decodeAll(Array(mp3[..<(mp3.count / 3)]))
        try decoder.reset()
        #expect(decoder.format == nil)
        let again = try decoder.decodeAll(mp3).samples
        #expect(again == (try MP3Decoder().decodeAll(mp3).samples))
    }

    @Test func sniffsAndNamesCodecs() throws {
        let mp3 = try MediaFixtures.sineMP3(seconds: 1, frequency: 440)
        #expect(AudioCodec.sniff(mp3) == .mp3)
        #expect(AudioCodec.sniff(Array("OggS".utf8)) == .oggOpus)
        #expect(AudioCodec.sniff(Array("<html>".utf8)) == nil)
        #expect(AudioCodec.sniff([0xFF, 0xF1, 0x50, 0x80]) == .aac, "AAC ADTS is not MP3")
        #expect(AudioCodec.sniff(Array("fLaC".utf8)) == .flac)
        #expect(AudioCodec.sniff([0, 0, 0, 0x20] + Array("ftypM4A ".utf8)) == .mp4)
        #expect(AudioCodec(contentType: "audio/mpeg") == .mp3)
        #expect(AudioCodec(contentType: "Audio/Ogg; codecs=opus") == .oggOpus)
        #expect(AudioCodec(contentType: "audio/aacp") == .aac)
        #expect(AudioCodec(contentType: "text/html; charset=utf-8") == nil)
        // the bytes win over a mislabelled Content-Type; an ID3 tag alone guesses MP3
        #expect(AudioCodec.of(contentType: "audio/mpeg", firstBytes: [0xFF, 0xF1, 0x50, 0x80]) == .aac)
        #expect(AudioCodec.of(contentType: "audio/aac", firstBytes: Array("ID3".utf8)) == .aac)
        #expect(AudioCodec.of(contentType: nil, firstBytes: Array("ID3".utf8)) == .mp3)
        let error = CodecError(kind: .library, codec: "mp3", function: "mpg123_feed", code: -1, message: "out of memory")
        #expect(error.description == "mp3 decoder: mpg123_feed failed (code -1): out of memory")
    }
}
