import AudioCore
import Testing

@Suite struct MixerFlushSequenceTests {
    @Test func aFlushIsAppliedAtTheNextRenderAndAudioWrittenAfterThatSurvives() {
        let mixer = Mixer(configuration: Mixer.Configuration(format: AudioFormat(sampleRate: 48_000, channels: 1), flushFadeMilliseconds: 0))
        mixer.write([Int16](repeating: 1_000, count: 480), to: .voice)
        let sequence = mixer.flush(.voice)
        #expect(sequence == 1)
        #expect(mixer.flushesApplied(.voice) == 0)
        var output = [Int16](repeating: 0, count: 480)
        output.withUnsafeMutableBufferPointer { mixer.render(into: $0) }
        #expect(mixer.flushesApplied(.voice) == 1)
        #expect(output.allSatisfy { $0 == 0 })
        mixer.write([Int16](repeating: 2_000, count: 480), to: .voice)
        output.withUnsafeMutableBufferPointer { mixer.render(into: $0) }
        #expect(output.allSatisfy { $0 == 2_000 })
        #expect(mixer.flushesApplied(.earcon) == 0)
    }
}
