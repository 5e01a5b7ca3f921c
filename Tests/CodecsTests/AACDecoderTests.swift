import AudioCore
import Codecs
import TestSupport
import Testing

@Suite struct AACDecoderTests {
    static func adts(seconds: Double = 2, frequency: Int = 440, sampleRate: Int = 44_100, channels: Int = 2) throws -> [UInt8] {
        try MediaFixtures.ffmpegSine(
            "aac", encoder: ["-c:a", "aac", "-b:a", "96k", "-f", "adts"], seconds: seconds, frequency: frequency,
            sampleRate: sampleRate, channels: channels)
    }

    @Test func decodesAnADTSSineAtItsRateLengthAndFrequency() throws {
        let aac = try Self.adts()
        #expect(AudioCodec.sniff(aac) == .aac)
        let decoder = AACDecoder()
        let (format, samples) = try decoder.decodeAll(aac)
        #expect(format == AudioFormat(sampleRate: 44_100, channels: 2))
        let frames = samples.count / 2
        // the encoder's priming and padding stay (ADTS carries no edit list): under three 1024-frame blocks
        #expect(frames >= 88_200 && frames <= 88_200 + 3 * 1_024, "decoded \(frames) frames")
        let left = channelSamples(samples, channels: 2)
        #expect(abs(estimatedFrequency(left, sampleRate: 44_100) - 440) < 2)
        #expect(peak(left) > 12_000 && peak(left) < 20_000)
        #expect(decoder.corruptFrames == 0)
    }

    @Test(arguments: [1, 7, 417, 4_096])
    func anyChunkingGivesTheSameSamples(chunk: Int) throws {
        let aac = try Self.adts(seconds: 1)
        let whole = try AACDecoder().decodeAll(aac).samples
        let decoder = AACDecoder()
        var pieces: [Int16] = []
        for start in stride(from: 0, to: aac.count, by: chunk) {
            try Array(aac[start..<min(start + chunk, aac.count)]).withUnsafeBytes { raw in
                try decoder.decode(raw) { pieces.append(contentsOf: $0.samples) }
            }
        }
        #expect(pieces == whole)
    }

    @Test func monoLowRateStreamPlaysAtItsPitch() throws {
        let aac = try Self.adts(seconds: 1, frequency: 300, sampleRate: 22_050, channels: 1)
        let (format, samples) = try AACDecoder().decodeAll(aac)
        // ADTS signals HE-AAC (SBR, parametric stereo) only inside the frames, so a low-rate mono stream
        // comes out as libfaad's SBR-ready double rate and stereo
        let output = try #require(format)
        #expect([22_050, 44_100].contains(output.sampleRate) && [1, 2].contains(output.channels), "\(output)")
        let mono = channelSamples(samples, channels: output.channels)
        #expect(abs(estimatedFrequency(mono, sampleRate: output.sampleRate) - 300) < 2)
    }

    @Test func joinsAStreamMidFrameAndSkipsJunkAndATag() throws {
        let aac = try Self.adts(seconds: 1)
        var tag = Array("ID3".utf8) + [4, 0, 0, 0, 0, 0x10]
        tag += [UInt8](repeating: 0x41, count: 16)
        let damaged = tag + Array(aac[1_000...]) + junk(count: 3_000) + aac
        let decoder = AACDecoder()
        let samples = try decoder.decodeAll(damaged).samples
        let whole = try AACDecoder().decodeAll(aac).samples.count
        #expect(samples.count > whole, "both copies play")
        let second = channelSamples(Array(samples.suffix(whole)), channels: 2)
        #expect(abs(estimatedFrequency(second, sampleRate: 44_100) - 440) < 2)
    }

    @Test func aStreamOfNothingButRejectedFramesIsRefusedWithTheReason() throws {
        // valid ADTS headers (LC, 44.1 kHz, stereo, 64-byte frames) around garbage payloads
        let header: [UInt8] = [0xFF, 0xF1, 0x50, 0x80, 0x08, 0x1F, 0xFC]
        var stream: [UInt8] = []
        for index in 0..<200 { stream += header + (0..<57).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ index) } }
        #expect {
            try AACDecoder().decodeAll(stream)
        } throws: { error in
            (error as? CodecError)?.kind == .unsupported || (error as? CodecError)?.kind == .invalidStream
        }
    }

    @Test func resetStartsAFreshStream() throws {
        let aac = try Self.adts(seconds: 1)
        let decoder = AACDecoder()
        _ = try decoder.decodeAll(Array(aac[..<(aac.count / 3)]))
        try decoder.reset()
        #expect(decoder.format == nil)
        #expect(try decoder.decodeAll(aac).samples == (try AACDecoder().decodeAll(aac).samples))
    }
}
