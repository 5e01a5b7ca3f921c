import Glibc
import TestProcess
import Testing

@testable import AudioCore

/// `LoudnessMeter` against BS.1770-4's reference values and against ffmpeg's `ebur128`.
struct LoudnessMeterTests {
    @Test func theStandardsReferenceSineOnOneChannelReadsMinus3Point01() {
        let format = AudioFormat(sampleRate: 48_000, channels: 2)
        let samples = LoudnessSignals.int16(
            LoudnessSignals.sine(frames: 48_000 * 5, channels: 2, rate: 48_000, frequency: 997, amplitude: 32_767.0 / 32_768, onChannels: [0]),
            gain: 1)
        var meter = LoudnessMeter(format: format, integrated: true)
        samples.withUnsafeBufferPointer { meter.process($0) }
        #expect(abs(meter.integratedLoudness! + 3.01) < 0.02, "\(meter.integratedLoudness!)")
        #expect(abs(meter.momentaryLoudness! + 3.01) < 0.02)
        #expect(abs(meter.shortTermLoudness! + 3.01) < 0.02)
    }

    /// K-weighting is designed for each rate: a 1 kHz stereo sine at −23 dBFS reads −23 LUFS at all of them.
    @Test(arguments: [8_000, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000, 96_000])
    func aStereoSineAtMinus23DBFSReadsMinus23AtEveryRate(_ rate: Int) {
        let format = AudioFormat(sampleRate: rate, channels: 2)
        let amplitude = pow(10, -23.0 / 20)
        let samples = LoudnessSignals.int16(
            LoudnessSignals.sine(frames: rate * 4, channels: 2, rate: rate, frequency: 1_000, amplitude: amplitude), gain: 1)
        let loudness = LoudnessSignals.integrated(samples, format: format)!
        #expect(abs(loudness + 23) < 0.1, "\(rate) Hz: \(loudness)")
    }

    /// EBU Tech 3341 case 3's shape: −36, −23, −36 dBFS; the quiet parts fall under the relative gate.
    @Test func theRelativeGateLeavesQuietPassagesOut() {
        let format = AudioFormat(sampleRate: 48_000, channels: 2)
        func tone(_ dBFS: Double, seconds: Int) -> [Int16] {
            LoudnessSignals.int16(
                LoudnessSignals.sine(frames: 48_000 * seconds, channels: 2, rate: 48_000, frequency: 1_000, amplitude: pow(10, dBFS / 20)),
                gain: 1)
        }
        let samples = LoudnessSignals.concatenate([tone(-36, seconds: 10), tone(-23, seconds: 60), tone(-36, seconds: 10)])
        let loudness = LoudnessSignals.integrated(samples, format: format)!
        #expect(abs(loudness + 23) < 0.1, "\(loudness)")
        // Silence reads nothing; the absolute gate keeps it out.
        #expect(LoudnessSignals.integrated([Int16](repeating: 0, count: 48_000 * 2), format: format) == nil)
    }

    @Test func aMonoSourceForAStereoSpeakerCountsTwice() {
        let format = AudioFormat(sampleRate: 24_000, channels: 1)
        let samples = LoudnessSignals.int16(
            LoudnessSignals.sine(frames: 24_000 * 3, channels: 1, rate: 24_000, frequency: 1_000, amplitude: 0.1), gain: 1)
        let single = LoudnessSignals.integrated(samples, format: format)!
        let dual = LoudnessSignals.integrated(samples, format: format, dualMono: true)!
        #expect(abs(dual - single - 3.0103) < 0.02, "\(single) \(dual)")
    }

    @Test func theSlidingGatedLoudnessIgnoresAGap() {
        let format = AudioFormat(sampleRate: 48_000, channels: 2)
        let noise = LoudnessSignals.scaled(LoudnessSignals.pinkNoise(frames: 48_000 * 2, channels: 2), to: -20, format: format)
        let gap = [Int16](repeating: 0, count: 48_000)  // half a second of stereo silence
        var meter = LoudnessMeter(format: format)
        LoudnessSignals.concatenate([noise, gap]).withUnsafeBufferPointer { meter.process($0) }
        // The ungated short-term window would read the gap; the gated one reads the noise.
        #expect(abs(meter.gatedLoudness()! + 20) < 0.5, "\(meter.gatedLoudness()!)")
    }

    enum Signal: String, CaseIterable, Sendable {
        case pinkStereo48k, pinkStereo44k, toneBurstsStereo48k, pinkMono22k, lowAndHighTones32k
    }

    /// The product's meter and ffmpeg's `ebur128` agree within 0.1 LU (ffmpeg prints one decimal).
    @Test(arguments: Signal.allCases)
    func itAgreesWithFFmpegsEBUR128(_ signal: Signal) async throws {
        let (rate, channels): (Int, Int) =
            switch signal {
            case .pinkStereo48k, .toneBurstsStereo48k: (48_000, 2)
            case .pinkStereo44k: (44_100, 2)
            case .pinkMono22k: (22_050, 1)
            case .lowAndHighTones32k: (32_000, 2)
            }
        let frames = rate * 8
        var source: [Double]
        switch signal {
        case .pinkStereo48k, .pinkStereo44k, .pinkMono22k:
            source = LoudnessSignals.pinkNoise(frames: frames, channels: channels, seed: UInt64(rate))
        case .toneBurstsStereo48k:
            // 1 s on, 1 s at −30 dB: the gates matter
            source = LoudnessSignals.sine(frames: frames, channels: channels, rate: rate, frequency: 2_500, amplitude: 0.3)
            for f in 0..<frames where (f / rate) % 2 == 1 {
                for c in 0..<channels { source[f * channels + c] *= 0.03 }
            }
        case .lowAndHighTones32k:
            let low = LoudnessSignals.sine(frames: frames, channels: channels, rate: rate, frequency: 60, amplitude: 0.4)
            let high = LoudnessSignals.sine(frames: frames, channels: channels, rate: rate, frequency: 9_000, amplitude: 0.1)
            source = zip(low, high).map { $0 + $1 }
        }
        let samples = LoudnessSignals.int16(source, gain: 1)
        let dir = TemporaryDirectory()
        let path = dir.file("\(signal.rawValue).raw")
        try TestFiles.write(samples: samples, to: path)
        let reference = try #require(try await FFmpegLoudness.integrated(rawFile: path, sampleRate: rate, channels: channels))
        let ours = try #require(LoudnessSignals.integrated(samples, format: AudioFormat(sampleRate: rate, channels: channels)))
        print("loudness \(signal.rawValue): ours \(ours) LUFS, ffmpeg \(reference) LUFS")
        #expect(abs(ours - reference) <= 0.1, "ours \(ours), ffmpeg \(reference)")
    }
}
