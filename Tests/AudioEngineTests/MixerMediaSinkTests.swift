import AudioCore
import AudioEngine
import Testing

@Suite struct MixerMediaSinkTests {
    @Test func flushDropsQueuedAudioAndHoldsNewAudioUntilApplied() {
        let mixer = Mixer(configuration: Mixer.Configuration(format: AudioFormat(sampleRate: 48_000, channels: 2)))
        let output: any MediaOutput = MixerMediaSink(mixer: mixer)
        let format = AudioFormat(sampleRate: 48_000, channels: 2)
        let block = [Int16](repeating: 1_000, count: 4_800 * 2)
        #expect(block.withUnsafeBufferPointer { output.write($0, format: format) } == 4_800)
        #expect(abs(output.queuedSeconds - 0.1) < 0.001)
        output.flush()
        #expect(block.withUnsafeBufferPointer { output.write($0, format: format) } == 0, "held until the flush is applied")
        var period = [Int16](repeating: 0, count: 480 * 2)
        period.withUnsafeMutableBufferPointer { mixer.render(into: $0) }
        #expect(period.first != 0 && period.last == 0, "the 5 ms fade, then silence")
        #expect(output.queuedSeconds == 0)
        #expect(block.withUnsafeBufferPointer { output.write($0, format: format) } == 4_800)
        period.withUnsafeMutableBufferPointer { mixer.render(into: $0) }
        #expect(period.allSatisfy { $0 == 1_000 }, "new audio plays after the flush")
    }

    @Test func resamplesIntoTheMixersMediaChannel() throws {
        let mixer = Mixer(configuration: Mixer.Configuration(format: AudioFormat(sampleRate: 48_000, channels: 2)))
        let sink = MixerMediaSink(mixer: mixer)
        let input = [Int16](repeating: 1_000, count: 4_410 * 2)
        let accepted = input.withUnsafeBufferPointer { sink.write($0, format: AudioFormat(sampleRate: 44_100, channels: 2)) }
        #expect(accepted == 4_410)
        sink.finish()
        let queued = mixer.framesQueued(.media)
        #expect(abs(queued - 4_800) < 64, "\(queued) frames at 48 kHz for 100 ms")
    }
}
