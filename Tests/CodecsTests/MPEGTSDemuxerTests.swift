import AudioCore
import Codecs
import Glibc
import TestSupport
import Testing

@Suite struct MPEGTSDemuxerTests {
    /// AAC in MPEG-TS as ffmpeg's HLS muxer writes it, with timed ID3 titles copied in.
    static func transportStream(seconds: Double = 4, titles: [String] = []) throws -> [UInt8] {
        var id3: [String] = []
        var maps = ["-map", "0:a"]
        if !titles.isEmpty {
            let path = "/tmp/jv-ts-id3-\(getpid()).ts"
            let bytes = TimedID3Stream.transportStream(titles: titles, interval: .seconds(1))
            let file = try #require(fopen(path, "wb"), "cannot write \(path)")
            _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            fclose(file)
            id3 = ["-i", path]
            maps += ["-map", "1:d", "-c:d", "copy"]
        }
        return try MediaFixtures.toolOutput(
            "ffmpeg", extension: "ts",
            ["-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=\(seconds)"] + id3 + maps
                + ["-ac", "2", "-c:a", "aac", "-b:a", "96k", "-max_interleave_delta", "500000", "-f", "mpegts", "-y", "%OUT%"])
    }

    static func demux(_ ts: [UInt8], chunk: Int) throws -> (audio: [UInt8], stream: MPEGTSDemuxer.AudioStream?, tags: [[UInt8]]) {
        var demuxer = MPEGTSDemuxer()
        var audio: [UInt8] = []
        var stream: MPEGTSDemuxer.AudioStream?
        var tags: [[UInt8]] = []
        for start in stride(from: 0, to: ts.count, by: chunk) {
            try Array(ts[start..<min(start + chunk, ts.count)]).withUnsafeBytes { raw in
                try demuxer.push(
                    raw,
                    audio: { kind, bytes in
                        stream = kind
                        audio.append(contentsOf: bytes)
                    }, tag: { tags.append($0) })
            }
        }
        demuxer.endOfSegment { tags.append($0) }
        return (audio, stream, tags)
    }

    @Test(arguments: [188, 1_000, 65_536])
    func theAudioIsAnADTSStreamThatDecodes(chunk: Int) throws {
        let (audio, stream, _) = try Self.demux(try Self.transportStream(), chunk: chunk)
        #expect(stream == .aac)
        #expect(AudioCodec.sniff(audio) == .aac)
        let (format, samples) = try AACDecoder().decodeAll(audio)
        #expect(format == AudioFormat(sampleRate: 44_100, channels: 2))
        #expect(samples.count / 2 >= 4 * 44_100 - 2_048)
        #expect(abs(estimatedFrequency(channelSamples(samples, channels: 2), sampleRate: 44_100) - 440) < 2)
    }

    @Test func timedID3TitlesComeOutAsTags() throws {
        let (_, _, tags) = try Self.demux(try Self.transportStream(titles: ["First Song", "Second Song"]), chunk: 4_096)
        #expect(tags.compactMap(ID3Tag.streamTitle) == ["First Song", "Second Song"], "\(tags.count) tags")
    }
}
