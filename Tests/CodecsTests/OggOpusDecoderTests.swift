import AudioCore
import Codecs
import TestSupport
import Testing

@Suite struct OggOpusDecoderTests {
    private func encode(seconds: Double, frequency: Int, channels: Int = 2, serial: UInt32 = 1, tags: [String] = []) throws -> [UInt8] {
        let pcm = try MediaFixtures.sinePCM(seconds: seconds, frequency: frequency, sampleRate: 48_000, channels: channels)
        let writer = try OggOpusWriter(channels: channels, serial: serial, tags: tags)
        return try writer.write(pcm) + writer.finish()
    }

    @Test func roundTripKeepsLengthRateAndFrequency() throws {
        let ogg = try encode(seconds: 1, frequency: 440, tags: ["ARTIST=Someone", "TITLE=Sine"])
        let decoder = OggOpusDecoder()
        let (format, samples) = try decoder.decodeAll(ogg)
        #expect(format == AudioFormat(sampleRate: 48_000, channels: 2))
        // Pre-skip removed at the start, padding trimmed by the end granule: exactly the input length.
        #expect(samples.count / 2 == 48_000)
        #expect(abs(estimatedFrequency(channelSamples(samples, channels: 2), sampleRate: 48_000) - 440) < 3)
        #expect(peak(samples) > 10_000)
        #expect(decoder.tags?.streamTitle == "Someone - Sine")
        #expect(decoder.head?.preSkip ?? 0 > 0)
    }

    @Test func anR128TrackGainIsTheTaggedLoudness() throws {
        let ogg = try encode(seconds: 0.2, frequency: 440, tags: ["R128_TRACK_GAIN=512"])
        let decoder = OggOpusDecoder()
        #expect(decoder.taggedLoudness == nil)
        _ = try decoder.decodeAll(ogg)
        #expect(decoder.taggedLoudness == -25)  // +2 dB to reach -23 LUFS
    }

    @Test(arguments: [1, 13, 200, 4_096])
    func anyChunkingGivesTheSameSamples(chunk: Int) throws {
        let ogg = try encode(seconds: 0.5, frequency: 440, channels: 1)
        let whole = try OggOpusDecoder().decodeAll(ogg).samples
        let decoder = OggOpusDecoder()
        var pieces: [Int16] = []
        for start in stride(from: 0, to: ogg.count, by: chunk) {
            try Array(ogg[start..<min(start + chunk, ogg.count)]).withUnsafeBytes { raw in
                try decoder.decode(raw) { pieces.append(contentsOf: $0.samples) }
            }
        }
        #expect(whole.count == 24_000)
        #expect(pieces == whole)
    }

    @Test func chainedStreamsStartFreshDecodersAndUpdateTags() throws {
        let first = try encode(seconds: 0.5, frequency: 440, serial: 10, tags: ["TITLE=One"])
        let second = try encode(seconds: 0.5, frequency: 660, channels: 1, serial: 11, tags: ["TITLE=Two"])
        let decoder = OggOpusDecoder()
        var formats: [AudioFormat] = []
        var frames = 0
        try (first + second).withUnsafeBytes { raw in
            try decoder.decode(raw) { block in
                if formats.last != block.format { formats.append(block.format) }
                frames += block.frameCount
            }
        }
        #expect(decoder.streamsStarted == 2)
        #expect(decoder.tags?.streamTitle == "Two")
        #expect(formats == [AudioFormat(sampleRate: 48_000, channels: 2), AudioFormat(sampleRate: 48_000, channels: 1)])
        #expect(frames == 48_000)
    }

    @Test func aCorruptPageIsSkippedAndDecodingContinues() throws {
        var ogg = try encode(seconds: 1, frequency: 440)
        ogg[ogg.count / 2] ^= 0x55
        let decoder = OggOpusDecoder()
        let samples = try decoder.decodeAll(junk(count: 500) + ogg).samples
        let frames = samples.count / 2
        #expect(frames >= 48_000 - 960 && frames < 48_000)
    }

    @Test func joiningWithoutHeadersProducesNothingUntilAStreamBegins() throws {
        let ogg = try encode(seconds: 0.5, frequency: 440)
        let decoder = OggOpusDecoder()
        let tail = try decoder.decodeAll(Array(ogg[(ogg.count / 2)...]))
        #expect(tail.samples.isEmpty)
        let next = try decoder.decodeAll(try encode(seconds: 0.5, frequency: 440, serial: 99))
        #expect(next.samples.count == 48_000)
    }

    @Test func demuxesPagesWrittenByLibogg() throws {
        // sox writes Ogg Vorbis through libogg: a third-party check of our CRC and lacing.
        let ogg = try MediaFixtures.soxOutput(extension: "ogg", ["-D", "-n", "-r", "44100", "-c", "1", "%OUT%", "synth", "1", "sine", "440"])
        var demuxer = OggDemuxer()
        demuxer.push(ogg)
        var packets: [OggPacket] = []
        while let packet = demuxer.nextPacket() { packets.append(packet) }
        #expect(demuxer.corruptPages == 0)
        #expect(packets.count > 10)
        #expect(packets.first?.isBeginning == true)
        #expect(packets.first?.data.starts(with: [1] + Array("vorbis".utf8)) == true)
        #expect(packets.last?.isEnd == true)
        #expect(packets.last?.granule == 44_100)
        // Not Opus: the Opus decoder refuses it by name once its headers are over (never silence).
        do {
            _ = try OggOpusDecoder().decodeAll(ogg)
            Issue.record("Ogg Vorbis decoded as Opus")
        } catch {
            #expect(error.kind == .unsupported && error.message.contains("Ogg Vorbis"), "\(error)")
        }
    }

    @Test func rejectsBrokenHeadersWithTheirName() {
        #expect(throws: CodecError.self) { try OpusHead(parsing: Array("OpusHead".utf8) + [1]) }
        do {
            _ = try OpusHead(parsing: Array("OpusHead".utf8) + [1, 3, 0, 0, 0x80, 0xBB, 0, 0, 0, 0, 0])
            Issue.record("three channels with family 0 must fail")
        } catch {
            #expect(error.function == "OpusHead")
            #expect(error.description.contains("3 channels"))
        }
    }

    @Test func otherOggAudioCodecsAreNamedByTheirFirstPacket() {
        #expect(OggOpusDecoder.audioCodecName(identifiedBy: [0x01] + Array("vorbis".utf8) + [0, 0]) == "Vorbis")
        #expect(OggOpusDecoder.audioCodecName(identifiedBy: [0x7F] + Array("FLAC".utf8) + [1, 0]) == "FLAC")
        #expect(OggOpusDecoder.audioCodecName(identifiedBy: Array("Speex   1.2".utf8)) == "Speex")
        #expect(OggOpusDecoder.audioCodecName(identifiedBy: [0x80] + Array("theora".utf8)) == nil, "video is ignored")
    }
}
