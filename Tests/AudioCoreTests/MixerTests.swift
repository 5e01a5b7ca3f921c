import Testing

@testable import AudioCore

@Suite struct MixerTests {
    let stereo = AudioFormat(sampleRate: 48_000, channels: 2)

    @Test func sumsChannelsAndSaturatesOnceAfterSumming() {
        let mixer = Mixer()
        mixer.write(AudioTestSignals.constant(30_000, frames: 100, channels: 2), to: .voice)
        mixer.write(AudioTestSignals.constant(30_000, frames: 200, channels: 2), to: .earcon)
        mixer.write(AudioTestSignals.constant(-30_000, frames: 300, channels: 2), to: .media)
        let out = mixer.render(frames: 400, period: 400)
        #expect(out[0..<200].allSatisfy { $0 == 30_000 })  // 30000 + 30000 - 30000: no clip on the way
        #expect(out[200..<400].allSatisfy { $0 == 0 })  // earcon + media cancel
        #expect(out[400..<600].allSatisfy { $0 == -30_000 })
        #expect(out[600..<800].allSatisfy { $0 == 0 })

        mixer.write(AudioTestSignals.constant(30_000, frames: 10, channels: 2), to: .voice)
        mixer.write(AudioTestSignals.constant(20_000, frames: 10, channels: 2), to: .media)
        mixer.write(AudioTestSignals.constant(-30_000, frames: 5, channels: 2), to: .earcon)
        mixer.write(AudioTestSignals.constant(-30_000, frames: 5, channels: 2), to: .earcon)
        mixer.write(AudioTestSignals.constant(-30_000, frames: 10, channels: 2), to: .earcon)
        let hot = mixer.render(frames: 30, period: 30)
        #expect(hot[0..<20].allSatisfy { $0 == 20_000 })
        #expect(hot[20..<40].allSatisfy { $0 == -30_000 })
        mixer.write(AudioTestSignals.constant(30_000, frames: 4, channels: 2), to: .voice)
        mixer.write(AudioTestSignals.constant(20_000, frames: 4, channels: 2), to: .media)
        #expect(mixer.render(frames: 4, period: 4).allSatisfy { $0 == Int16.max })
    }

    @Test func aDryChannelContributesSilenceWithoutDisturbingTheOthers() {
        let mixer = Mixer()
        let music = AudioTestSignals.sine(frames: 2_000, channels: 2)
        mixer.write(music, to: .media)
        mixer.write(AudioTestSignals.constant(1_000, frames: 100, channels: 2), to: .voice)
        let out = mixer.render(frames: 2_000, period: 480)
        for i in 0..<(2_000 * 2) {
            #expect(out[i] == music[i] + (i < 200 ? 1_000 : 0))
        }
        #expect(mixer.dryRuns(.voice) == 1)
        #expect(mixer.dryRuns(.media) == 0)  // the last period ended exactly with the stream
        _ = mixer.render(frames: 480, period: 480)
        #expect(mixer.dryRuns(.media) == 1)
        #expect(mixer.framesRendered(.voice) == 100)
        #expect(mixer.framesRendered(.media) == 2_000)
        #expect(mixer.framesRendered(.earcon) == 0 && mixer.dryRuns(.earcon) == 0)
    }

    @Test func flushDropsQueuedVoiceAtOnceAfterAShortFade() {
        let mixer = Mixer(configuration: .init(flushFadeMilliseconds: 5))
        #expect(mixer.write(AudioTestSignals.constant(10_000, frames: 48_000, channels: 2), to: .voice) == 48_000)
        _ = mixer.render(frames: 480, period: 480)
        mixer.flush(.voice)
        let out = mixer.render(frames: 480, period: 480)
        #expect(mixer.framesQueued(.voice) == 0)
        // 240 frames (5 ms) fade linearly from the level to 0, then silence.
        #expect(out[0] == Int16((10_000.0 * 239 / 240).rounded()))
        for f in 1..<240 { #expect(out[f * 2] < out[(f - 1) * 2]) }
        #expect(out[(239 * 2)...].allSatisfy { $0 == 0 })
        #expect(mixer.framesRendered(.voice) == 480 + 240)
        #expect(mixer.framesDropped(.voice) == 48_000 - 720)
        #expect(mixer.renderedPosition(.voice) == 720)
        #expect(mixer.playhead(.voice, deviceDelayFrames: 300) == 420)

        // A new item after the flush plays at full level and the position follows the written stream.
        mixer.write(AudioTestSignals.constant(500, frames: 100, channels: 2), to: .voice)
        let next = mixer.render(frames: 100, period: 100)
        #expect(next.allSatisfy { $0 == 500 })
        #expect(mixer.renderedPosition(.voice) == mixer.framesWritten(.voice))
        #expect(mixer.framesWritten(.voice) == 48_100)
    }

    @Test func aPauseHoldsTheQueueAndResumesWhereItStoppedWithShortFades() {
        let mixer = Mixer(configuration: .init(flushFadeMilliseconds: 5))
        let music = AudioTestSignals.constant(10_000, frames: 4_800, channels: 2)
        mixer.write(music, to: .voice)
        _ = mixer.render(frames: 480, period: 480)
        mixer.setPaused(true, for: .voice)
        let paused = mixer.render(frames: 960, period: 480)
        // 240 frames (5 ms) fade out, then silence; the held audio stays queued and its position stands.
        for f in 1..<240 { #expect(paused[f * 2] < paused[(f - 1) * 2]) }
        #expect(paused[(240 * 2)...].allSatisfy { $0 == 0 })
        #expect(mixer.framesQueued(.voice) == 4_800 - 480 - 240)
        #expect(mixer.renderedPosition(.voice) == 720)
        #expect(mixer.dryRuns(.voice) == 0, "a pause is not an underrun")
        mixer.setPaused(false, for: .voice)
        let resumed = mixer.render(frames: 480, period: 480)
        // It fades in from silence over 5 ms and goes on at the level, from the frame after the fade.
        #expect(resumed[0] > 0 && resumed[0] < 100)
        for f in 1..<240 { #expect(resumed[f * 2] > resumed[(f - 1) * 2]) }
        #expect(resumed[(240 * 2)...].allSatisfy { $0 == 10_000 })
        #expect(mixer.renderedPosition(.voice) == 1_200)
        // A flush while paused drops everything without a faded tail.
        mixer.setPaused(true, for: .voice)
        _ = mixer.render(frames: 480, period: 480)
        mixer.flush(.voice)
        #expect(mixer.render(frames: 480, period: 480).allSatisfy { $0 == 0 })
        #expect(mixer.framesQueued(.voice) == 0)
    }

    @Test func hardFlushWithoutFade() {
        let mixer = Mixer(configuration: .init(flushFadeMilliseconds: 0))
        mixer.write(AudioTestSignals.constant(10_000, frames: 1_000, channels: 2), to: .voice)
        mixer.write(AudioTestSignals.constant(7, frames: 1_000, channels: 2), to: .media)
        _ = mixer.render(frames: 10, period: 10)
        mixer.flush(.voice)
        let out = mixer.render(frames: 100, period: 100)
        #expect(out.allSatisfy { $0 == 7 })
        #expect(mixer.framesDropped(.voice) == 990)
    }

    @Test func countersAreExactOverIrregularPeriods() {
        let mixer = Mixer()
        var written = 0
        var rendered = 0
        let periods = [1, 17, 480, 256, 1_024, 3_000, 5]
        for i in 0..<40 {
            let chunk = AudioTestSignals.constant(Int16(i), frames: 37 * (i % 9 + 1), channels: 2)
            written += mixer.write(chunk, to: .voice)
            _ = mixer.render(frames: periods[i % periods.count], period: 4_096)
            rendered = min(written, rendered + periods[i % periods.count])
            #expect(mixer.framesRendered(.voice) == rendered)
            #expect(mixer.renderedPosition(.voice) == rendered)
            #expect(mixer.framesQueued(.voice) == written - rendered)
        }
        #expect(mixer.framesWritten(.voice) == written)
    }

    @Test func writeAcceptsWholeFramesUpToCapacity() {
        let mixer = Mixer(configuration: .init(voiceQueueMilliseconds: 10))  // 480 frames
        #expect(mixer.availableFrames(toWrite: .voice) == 480)
        #expect(mixer.write(AudioTestSignals.constant(1, frames: 400, channels: 2), to: .voice) == 400)
        #expect(mixer.write(AudioTestSignals.constant(1, frames: 400, channels: 2), to: .voice) == 80)
        #expect(mixer.write([1, 2, 3], to: .voice) == 0)
        _ = mixer.render(frames: 100, period: 100)
        #expect(mixer.availableFrames(toWrite: .voice) == 100)
    }

    @Test func gainChangesStartAtTheNextPeriodAndRampSampleAccurately() {
        let mixer = Mixer()
        mixer.write(AudioTestSignals.constant(20_000, frames: 1_000, channels: 2), to: .media)
        _ = mixer.render(frames: 100, period: 100)
        mixer.setGain(0.5, frames: 200, shape: .linear, for: .media)
        let out = mixer.render(frames: 300, period: 64)
        for k in 1...200 {
            #expect(out[(k - 1) * 2] == Int16((20_000 * (1 - 0.5 * Double(k) / 200)).rounded(.toNearestOrEven)))
        }
        #expect(out[(200 * 2)...].allSatisfy { $0 == 10_000 })
        #expect(mixer.requestedGain(.media) == 0.5)
    }

    @Test func repeatingAGainRequestDoesNotRestartTheRamp() {
        func run(repeat: Bool) -> [Int16] {
            let mixer = Mixer()
            mixer.write(AudioTestSignals.constant(20_000, frames: 6_000, channels: 2), to: .media)
            mixer.setGain(0.1, frames: 4_800, for: .media)
            var out = mixer.render(frames: 2_400, period: 480)
            if `repeat` { mixer.setGain(0.1, frames: 4_800, for: .media) }
            out += mixer.render(frames: 3_600, period: 480)
            return out
        }
        #expect(run(repeat: true) == run(repeat: false))
    }
}
