import AudioCore
import Codecs
import Glibc
import TestSupport
import Testing

@Suite struct MP4DecoderTests {
    static func m4a(faststart: Bool, seconds: Double = 2, frequency: Int = 440) throws -> [UInt8] {
        try MediaFixtures.ffmpegSine(
            "m4a", encoder: ["-c:a", "aac", "-b:a", "96k"] + (faststart ? ["-movflags", "+faststart"] : []), seconds: seconds,
            frequency: frequency)
    }

    /// Feeds `file` as a source would: in `chunk`-byte reads from `start`, and a fresh read from wherever
    /// the decoder asks (an HTTP Range request). Returns the samples and the offsets asked for.
    static func stream(_ file: [UInt8], chunk: Int = 4_096, from start: Int = 0) throws -> (samples: [Int16], requests: [Int]) {
        let decoder = MP4Decoder()
        var samples: [Int16] = []
        var requests: [Int] = []
        var at = start
        if start > 0 { decoder.seek(to: start) }
        while requests.count < 10 {
            if let wanted = decoder.wantedOffset {
                requests.append(wanted)
                decoder.seek(to: wanted)
                at = wanted
                continue
            }
            guard at < file.count else { break }
            let end = min(at + chunk, file.count)
            try Array(file[at..<end]).withUnsafeBytes { raw in try decoder.decode(raw) { samples.append(contentsOf: $0.samples) } }
            at = end
        }
        #expect(decoder.format == AudioFormat(sampleRate: 44_100, channels: 2))
        return (samples, requests)
    }

    @Test func aFaststartFileStreamsStraightThrough() throws {
        let m4a = try Self.m4a(faststart: true)
        #expect(AudioCodec.sniff(m4a) == .mp4)
        let (samples, requests) = try Self.stream(m4a)
        #expect(requests.isEmpty)
        let frames = samples.count / 2
        #expect(frames >= 88_200 && frames <= 88_200 + 3 * 1_024, "decoded \(frames) frames")
        let left = channelSamples(samples, channels: 2)
        #expect(abs(estimatedFrequency(left, sampleRate: 44_100) - 440) < 2)
        #expect(peak(left) > 12_000 && peak(left) < 20_000)
    }

    @Test(arguments: [1, 333, 65_536])
    func anIndexAfterTheAudioIsFetchedThenTheAudioFromItsStart(chunk: Int) throws {
        let m4a = try Self.m4a(faststart: false)
        let (samples, requests) = try Self.stream(m4a, chunk: chunk)
        #expect(requests.count == 2, "the index, then the first sample: \(requests)")
        let same = samples == (try Self.stream(try Self.m4a(faststart: true), chunk: chunk)).samples
        #expect(same, "the same audio as faststart")
    }

    @Test(arguments: [false, true])
    func aResumedFileReadsTheIndexThenPlaysFromTheResumePoint(faststart: Bool) throws {
        let m4a = try Self.m4a(faststart: faststart, seconds: 4)
        let whole = try Self.stream(m4a).samples
        let (samples, requests) = try Self.stream(m4a, from: m4a.count / 2)
        #expect(requests.first == 0, "the index first: \(requests)")
        #expect(samples.count > whole.count / 3 && samples.count < whole.count * 2 / 3, "\(samples.count) of \(whole.count)")
        // The whole file's second half, once libfaad's overlap has settled (two frames); not bit for bit:
        // ffmpeg's encoder codes faint high bands as noise (PNS), which a decoder fills from its own generator.
        let tail = Array(whole.suffix(samples.count))
        var difference = 0.0
        var power = 0.0
        for index in (4 * 1_024)..<samples.count {
            difference += pow(Double(tail[index]) - Double(samples[index]), 2)
            power += pow(Double(tail[index]), 2)
        }
        #expect((difference / power).squareRoot() < 0.02, "the second half, sample for sample: \((difference / power).squareRoot())")
        #expect(abs(estimatedFrequency(channelSamples(samples, channels: 2), sampleRate: 44_100) - 440) < 2)
    }

    /// A fragmented file (the form of HLS's fMP4 segments: an empty index, then `moof`/`mdat` pairs)
    /// streams straight through, fragment by fragment.
    @Test(arguments: [1, 500, 65_536])
    func aFragmentedFileStreamsFragmentByFragment(chunk: Int) throws {
        let fragmented = try MediaFixtures.ffmpegSine(
            "mp4", encoder: ["-c:a", "aac", "-b:a", "96k", "-movflags", "frag_keyframe+empty_moov+default_base_moof", "-frag_duration", "500000"],
            seconds: 2)
        let (samples, requests) = try Self.stream(fragmented, chunk: chunk)
        #expect(requests.isEmpty)
        let frames = samples.count / 2
        #expect(frames >= 88_200 && frames <= 88_200 + 3 * 1_024, "decoded \(frames) frames")
        #expect(abs(estimatedFrequency(channelSamples(samples, channels: 2), sampleRate: 44_100) - 440) < 2)
    }

    @Test func otherCodecsInMP4AreRefusedByName() throws {
        let alac = try MediaFixtures.ffmpegSine("m4a", encoder: ["-c:a", "alac", "-movflags", "+faststart"], seconds: 0.5)
        #expect {
            try MP4Decoder().decodeAll(alac)
        } throws: { error in
            (error as? CodecError)?.description == "mp4 stream is not supported (stsd): the file's audio is ALAC, not AAC"
        }
    }

    @Test func hostileBoxesAreRefusedNotFollowed() throws {
        // a moov claiming 2 GB, an stsz claiming more entries than its box holds
        let hugeIndex: [UInt8] = [0, 0, 0, 8] + Array("ftyp".utf8) + [0x7F, 0xFF, 0xFF, 0xFF] + Array("moov".utf8)
        #expect(throws: CodecError.self) { try MP4Decoder().decodeAll(hugeIndex) }
        #expect(throws: CodecError.self) { try MP4AudioTrack(moov: [0, 0, 0, 12] + Array("trak".utf8) + [0, 0, 0, 0]) }
    }
}
