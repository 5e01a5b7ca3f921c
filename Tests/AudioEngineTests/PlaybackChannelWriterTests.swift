import AudioCore
import Glibc
import Testing

@testable import AudioEngine

@Suite struct PlaybackChannelWriterTests {
    static func sine(
        frames: Int, rate: Int, frequency: Double, amplitude: Double = 10_000, channels: Int = 1,
        silentChannels: Set<Int> = []
    ) -> [Int16] {
        var out = [Int16](repeating: 0, count: frames * channels)
        for f in 0..<frames {
            let v = Int16((amplitude * sin(2 * Double.pi * frequency * Double(f) / Double(rate))).rounded())
            for c in 0..<channels where !silentChannels.contains(c) { out[f * channels + c] = v }
        }
        return out
    }

    static func render(_ mixer: Mixer, frames: Int) -> [Int16] {
        var out = [Int16](repeating: 0, count: frames * mixer.format.channels)
        out.withUnsafeMutableBufferPointer { mixer.render(into: $0) }
        return out
    }

    /// Channel `channel` of interleaved `samples`.
    static func channel(_ samples: [Int16], _ channel: Int, of channels: Int) -> [Int16] {
        stride(from: channel, to: samples.count, by: channels).map { samples[$0] }
    }

    static func rms(_ samples: ArraySlice<Int16>) -> Double {
        (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }

    static func risingZeroCrossings(_ samples: ArraySlice<Int16>) -> Int {
        zip(samples, samples.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
    }

    @Test func voiceAt24kMonoBecomes48kStereoWithPitchAndLevelKept() throws {
        let mixer = Mixer()
        let writer = try PlaybackChannelWriter(mixer: mixer, channel: .voice, sourceFormat: .realtime)
        let voice = Self.sine(frames: 24_000, rate: 24_000, frequency: 1_000)
        #expect(writer.write(voice) == 24_000)
        #expect(writer.finish())
        // Exactly twice the frames, give or take the filter's rounding.
        #expect(abs(mixer.framesQueued(.voice) - 48_000) <= 2)
        #expect(writer.deviceFramesWritten == mixer.framesWritten(.voice))
        let out = Self.render(mixer, frames: 48_000)
        let left = Self.channel(out, 0, of: 2)
        #expect(left == Self.channel(out, 1, of: 2))
        let middle = left[4_800..<43_200]  // 0.8 s away from the edges
        #expect(abs(Self.risingZeroCrossings(middle) - 800) <= 1)
        #expect(abs(20 * log10(Self.rms(middle) / (10_000 / 2.0.squareRoot()))) < 0.2)
    }

    @Test func backPressureAcceptsOnlyWhatFitsAndResumes() throws {
        let mixer = Mixer(configuration: .init(voiceQueueMilliseconds: 100))  // 4 800 device frames
        let writer = try PlaybackChannelWriter(mixer: mixer, channel: .voice, sourceFormat: .realtime)
        let voice = Self.sine(frames: 24_000, rate: 24_000, frequency: 440)
        let estimate = writer.acceptableFrames
        let first = writer.write(voice)
        #expect(estimate <= first)
        #expect(abs(first - 2_400) <= 40)  // 100 ms of 24 kHz, within the filter's look-ahead
        #expect(mixer.availableFrames(toWrite: .voice) <= 2)
        #expect(writer.write(voice) == 0)
        _ = Self.render(mixer, frames: 2_400)
        let second = voice.withUnsafeBufferPointer { writer.write(UnsafeBufferPointer(rebasing: $0[first...])) }
        #expect(abs(second - 1_200) <= 40)
        #expect(writer.sourceFramesWritten == first + second)
    }

    @Test func stereoMediaAt44100KeepsItsChannelsApart() throws {
        let mixer = Mixer(configuration: .init(mediaQueueMilliseconds: 2_000))
        let format = AudioFormat(sampleRate: 44_100, channels: 2)
        let writer = try PlaybackChannelWriter(mixer: mixer, channel: .media, sourceFormat: format)
        let music = Self.sine(frames: 44_100, rate: 44_100, frequency: 441, channels: 2, silentChannels: [1])
        #expect(writer.write(music) == 44_100)
        #expect(abs(mixer.framesQueued(.media) - 48_000) <= 64)
        let out = Self.render(mixer, frames: 48_000)
        let left = Self.channel(out, 0, of: 2)[4_800..<43_200]
        let right = Self.channel(out, 1, of: 2)[4_800..<43_200]
        #expect(abs(Self.risingZeroCrossings(left) - 353) <= 1)  // 441 Hz over 0.8 s
        #expect(abs(20 * log10(Self.rms(left) / (10_000 / 2.0.squareRoot()))) < 0.2)
        #expect(right.allSatisfy { $0 == 0 })
    }

    @Test func sameRateIsBitExactAndMonoDevicesGetTheAverage() throws {
        let mixer = Mixer()
        let writer = try PlaybackChannelWriter(mixer: mixer, channel: .earcon, sourceFormat: mixer.format)
        let cue = Self.sine(frames: 1_000, rate: 48_000, frequency: 750, channels: 2, silentChannels: [1])
        #expect(writer.write(cue) == 1_000)
        #expect(Self.render(mixer, frames: 1_000) == cue)

        let monoMixer = Mixer(configuration: .init(format: AudioFormat(sampleRate: 48_000, channels: 1)))
        let down = try PlaybackChannelWriter(mixer: monoMixer, channel: .earcon, sourceFormat: AudioFormat(sampleRate: 48_000, channels: 2))
        #expect(down.write([100, 300, -8, 8, 32_767, 32_767]) == 3)
        #expect(Self.render(monoMixer, frames: 3) == [200, 0, 32_767])
    }
}
