import Testing

@testable import AudioCore

/// A pause of the voice taking back what the device still holds (`Mixer.takeBack`).
@Suite struct MixerTakeBackTests {
    /// Voice frame `f` carries the value `1 + f % 20_000` on both channels: where it goes on is readable.
    static func countingVoice(frames: Int) -> [Int16] {
        var samples = [Int16](repeating: 0, count: 2 * frames)
        for f in 0..<frames {
            let value = Int16(1 + f % 20_000)
            samples[2 * f] = value
            samples[2 * f + 1] = value
        }
        return samples
    }

    @Test func aPauseReplacesTheQueuedFramesWithTheMixWithoutTheVoiceAndPutsTheVoiceBack() {
        let mixer = Mixer(configuration: .init(flushFadeMilliseconds: 5))
        mixer.write(Self.countingVoice(frames: 9_600), to: .voice)
        mixer.write(AudioTestSignals.constant(100, frames: 9_600, channels: 2), to: .media)
        _ = mixer.render(frames: 1_920, period: 480)  // four periods: the device's buffer
        #expect(mixer.framesToTakeBack(limit: 1_440) == 0, "no pause requested")

        mixer.setPaused(true, for: .voice)
        #expect(mixer.framesToTakeBack(limit: 1_440) == 1_440)
        #expect(mixer.framesToTakeBack(limit: 240) == 0, "no more than the fade: nothing to gain")
        var replacement = [Int16](repeating: 0, count: 1_440 * 2)
        replacement.withUnsafeMutableBufferPointer { mixer.takeBack(frames: 1_440, into: $0) }
        // From frame 480 on: the voice fades out over 240 frames as a pause does, then only the media.
        for f in 0..<240 {
            let voice = Float(1 + (480 + f)) * Float(240 - f - 1) / 240
            #expect(replacement[f * 2] == 100 + Int16(voice.rounded()), "frame \(f)")
            #expect(replacement[f * 2 + 1] == replacement[f * 2])
        }
        #expect(replacement[(240 * 2)...].allSatisfy { $0 == 100 })
        // The voice after the fade is queued again, its position where the speaker stops.
        #expect(mixer.renderedPosition(.voice) == 720)
        #expect(mixer.framesRendered(.voice) == 720)
        #expect(mixer.framesQueued(.voice) == 9_600 - 720)
        #expect(mixer.framesToTakeBack(limit: 1_440) == 0, "the pause is applied")

        // Paused: the media alone, no second fade.
        #expect(mixer.render(frames: 480, period: 480).allSatisfy { $0 == 100 })
        mixer.setPaused(false, for: .voice)
        let resumed = mixer.render(frames: 960, period: 480)
        // It fades in and goes on at frame 720, the frame after the fade.
        #expect(resumed[0] > 100 && resumed[0] < 100 + 720)
        for f in 240..<960 { #expect(resumed[f * 2] == 100 + Int16(1 + 720 + f), "frame \(f)") }
        #expect(mixer.renderedPosition(.voice) == 720 + 960)
        #expect(mixer.framesQueued(.voice) == 9_600 - 720 - 960)
        #expect(mixer.dryRuns(.voice) == 0)
    }

    @Test func aFlushDropsWhatWasPutBack() {
        let mixer = Mixer(configuration: .init(flushFadeMilliseconds: 5))
        mixer.write(Self.countingVoice(frames: 4_800), to: .voice)
        _ = mixer.render(frames: 1_920, period: 480)
        mixer.setPaused(true, for: .voice)
        var replacement = [Int16](repeating: 0, count: 1_440 * 2)
        replacement.withUnsafeMutableBufferPointer { mixer.takeBack(frames: 1_440, into: $0) }
        mixer.flush(.voice)
        #expect(mixer.render(frames: 480, period: 480).allSatisfy { $0 == 0 })
        #expect(mixer.framesQueued(.voice) == 0)
        #expect(mixer.framesDropped(.voice) == 4_800 - 720)
        // The next answer's position follows the written stream.
        mixer.setPaused(false, for: .voice)
        mixer.write(AudioTestSignals.constant(500, frames: 100, channels: 2), to: .voice)
        _ = mixer.render(frames: 100, period: 100)
        #expect(mixer.renderedPosition(.voice) == mixer.framesWritten(.voice))
    }

    @Test func onlyFramesTheVoicePlayedStraightFromItsQueueAreTakenBack() {
        let mixer = Mixer(configuration: .init(flushFadeMilliseconds: 5))
        mixer.write(Self.countingVoice(frames: 4_800), to: .voice)
        _ = mixer.render(frames: 960, period: 480)
        mixer.renderedPeriodLost()
        _ = mixer.render(frames: 480, period: 480)
        mixer.setPaused(true, for: .voice)
        #expect(mixer.framesToTakeBack(limit: 1_440) == 480, "not across a period that never reached the device")
        _ = mixer.render(frames: 480, period: 480)

        // The voice ran dry in the last period: the answer is over, nothing to take back.
        let dry = Mixer(configuration: .init(flushFadeMilliseconds: 5))
        dry.write(Self.countingVoice(frames: 1_000), to: .voice)
        _ = dry.render(frames: 1_440, period: 480)
        dry.setPaused(true, for: .voice)
        #expect(dry.framesToTakeBack(limit: 1_440) == 0)

        // Without a memory there is nothing to take back.
        let none = Mixer(configuration: .init(takeBackMilliseconds: 0))
        none.write(Self.countingVoice(frames: 4_800), to: .voice)
        _ = none.render(frames: 1_920, period: 480)
        none.setPaused(true, for: .voice)
        #expect(none.framesToTakeBack(limit: 1_440) == 0)
    }

    /// A flush (a barge-in without a pause, a tap) is taken back too: the speaker stops as soon, nothing
    /// of the old answer plays after, and the next answer starts with a short fade-in at its position.
    @Test func aFlushIsTakenBackAsSoon() {
        let mixer = Mixer(configuration: .init(flushFadeMilliseconds: 5))
        mixer.write(Self.countingVoice(frames: 4_800), to: .voice)
        mixer.write(AudioTestSignals.constant(100, frames: 9_600, channels: 2), to: .media)
        _ = mixer.render(frames: 1_920, period: 480)
        mixer.flush(.voice)
        #expect(mixer.framesToTakeBack(limit: 1_440) == 1_440)
        var replacement = [Int16](repeating: 0, count: 1_440 * 2)
        replacement.withUnsafeMutableBufferPointer { mixer.takeBack(frames: 1_440, into: $0) }
        #expect(replacement[(240 * 2)...].allSatisfy { $0 == 100 })
        #expect(mixer.render(frames: 480, period: 480).allSatisfy { $0 == 100 }, "no second fade of the dropped answer")
        #expect(mixer.framesQueued(.voice) == 0)
        #expect(mixer.framesDropped(.voice) == 4_800 - 720)
        mixer.write(AudioTestSignals.constant(1_000, frames: 480, channels: 2), to: .voice)
        let next = mixer.render(frames: 480, period: 480)
        #expect(next[0] > 100 && next[0] < 200, "fades in")
        #expect(next[(240 * 2)...].allSatisfy { $0 == 1_100 })
        #expect(mixer.renderedPosition(.voice) == mixer.framesWritten(.voice))
    }

    /// A device that rewinds fewer frames than asked: the fade is as short as what was taken back, and
    /// nothing goes back in the queue.
    @Test func fewerFramesThanTheFadeAreFadedWhole() {
        let mixer = Mixer(configuration: .init(flushFadeMilliseconds: 5))
        mixer.write(AudioTestSignals.constant(8_000, frames: 4_800, channels: 2), to: .voice)
        _ = mixer.render(frames: 1_920, period: 480)
        mixer.setPaused(true, for: .voice)
        var replacement = [Int16](repeating: 0, count: 100 * 2)
        replacement.withUnsafeMutableBufferPointer { mixer.takeBack(frames: 100, into: $0) }
        for f in 1..<100 { #expect(replacement[f * 2] < replacement[(f - 1) * 2]) }
        #expect(replacement[99 * 2] == 0)
        #expect(mixer.renderedPosition(.voice) == 1_920)
        #expect(mixer.framesQueued(.voice) == 4_800 - 1_920)
        #expect(mixer.render(frames: 480, period: 480).allSatisfy { $0 == 0 }, "paused, no second fade")
    }
}
