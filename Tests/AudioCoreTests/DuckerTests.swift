import Testing

@testable import AudioCore

/// Ducking measured where it matters: on the mixer's output level.
@Suite struct DuckerTests {
    let format = AudioFormat(sampleRate: 48_000, channels: 2)
    let window = 240  // 5 ms, five whole cycles of the 1 kHz test tone

    /// A mixer with plenty of 1 kHz tone on the media channel; `level(_:)` renders `ms` and returns the
    /// RMS of every 5 ms window in dBFS.
    final class Rig {
        let mixer = Mixer(configuration: .init(mediaQueueMilliseconds: 4_000))
        let tone = AudioTestSignals.sine(frames: 48_000, channels: 2, amplitude: 16_384)
        var fed = 0
        func levels(ms: Int) -> [Float] {
            let frames = ms * 48
            while mixer.framesQueued(.media) < frames + 480 {
                let offset = fed % 48_000
                let n = min(mixer.availableFrames(toWrite: .media), 48_000 - offset)
                tone.withUnsafeBufferPointer {
                    fed += mixer.write(UnsafeBufferPointer(rebasing: $0[(offset * 2)..<((offset + n) * 2)]), to: .media)
                }
            }
            let out = mixer.render(frames: frames, period: 480)
            return stride(from: 0, to: frames, by: 240).map { rmsDBFS(out, channels: 2, frames: $0..<($0 + 240)) }
        }
    }

    @Test func ducksByTheDepthWithinTheRampTimeAndRestores() {
        let rig = Rig()
        let base = rig.levels(ms: 50).last!
        #expect(abs(base - (-6.02 - 3.01)) < 0.05)
        var ducker = Ducker()
        rig.mixer.apply(ducker.duck()!, to: .media)
        let down = rig.levels(ms: 200)
        // Halfway through the 100 ms ramp: roughly halfway in dB; not at depth before 90 ms.
        #expect(abs(down[9] - (base - 10)) < 1.5)
        #expect(down[17] > base - 19.5)
        // From 100 ms on: exactly the depth.
        for level in down[20...] { #expect(abs(level - (base - 20)) < 0.05) }

        rig.mixer.apply(ducker.release()!, to: .media)
        let up = rig.levels(ms: 400)
        #expect(up[29] < base - 0.5)  // still rising at 145 ms
        for level in up[60...] { #expect(abs(level - base) < 0.05) }  // back from 300 ms on
    }

    @Test func envelopeOfTheOutputFollowsTheDuck() {
        let mixer = Mixer()
        mixer.write(AudioTestSignals.sine(frames: 24_000, channels: 2, amplitude: 16_384), to: .media)
        var ducker = Ducker(configuration: .init(depthDecibels: -30))
        var out = mixer.render(frames: 4_800, period: 480)
        mixer.apply(ducker.duck()!, to: .media)
        out += mixer.render(frames: 19_200, period: 480)
        var follower = EnvelopeFollower(format: format, attackMilliseconds: 0.5, releaseMilliseconds: 10)
        let envelope = follower.envelopeDBFS(of: out)
        let before = envelope[3_840..<4_800].max()!  // the follower's reading of the unducked tone
        #expect(abs(before - Decibels.dBFS(16_384)) < 1)
        // Halfway through the 100 ms dB-linear ramp the envelope is about halfway down (-15 dB)...
        #expect(abs(envelope[4_800 + 2_400] - (before - 15)) < 1.5)
        // ...and from the end of the ramp on it sits at the depth: its peaks exactly, its troughs within
        // the follower's 1 ms decay between the tone's peaks (exp(-1/10) = -0.87 dB).
        for e in envelope[(4_800 + 5_040)...] { #expect(abs(e - (before - 30)) < 1) }
        #expect(abs(envelope[(4_800 + 18_240)...].max()! - (before - 30)) < 0.1)
    }

    @Test func duckingTwiceIsDuckingOnce() {
        let rig = Rig()
        _ = rig.levels(ms: 20)
        var ducker = Ducker()
        rig.mixer.apply(ducker.duck()!, to: .media)
        _ = rig.levels(ms: 50)
        #expect(ducker.duck() == nil)
        #expect(ducker.update(.thinking) == nil)
        #expect(ducker.update(.speaking) == nil)
        // Even a redundant command sent to the mixer neither restarts nor deepens the duck.
        rig.mixer.apply(GainChange(gain: ducker.gain, milliseconds: 100), to: .media)
        let levels = rig.levels(ms: 300)
        for level in levels[12...] { #expect(abs(level - (-9.03 - 20)) < 0.05) }
        #expect(ducker.isDucked)
    }

    @Test func volumeChangedWhileDuckedIsWhatReleaseRestores() {
        let rig = Rig()
        var ducker = Ducker(volume: 1)
        rig.mixer.apply(ducker.update(.listening)!, to: .media)
        _ = rig.levels(ms: 150)
        rig.mixer.apply(ducker.setVolume(0.5)!, to: .media)
        let ducked = rig.levels(ms: 100)
        #expect(abs(ducked.last! - (-9.03 - 20 - 6.02)) < 0.05)
        rig.mixer.apply(ducker.update(.idle)!, to: .media)
        let restored = rig.levels(ms: 400)
        for level in restored[60...] { #expect(abs(level - (-9.03 - 6.02)) < 0.05) }
        #expect(!ducker.isDucked && ducker.gain == 0.5)
    }

    @Test func releaseIsAlwaysSafe() {
        var ducker = Ducker(configuration: .init(depthDecibels: -12))
        #expect(ducker.release() == nil)
        #expect(ducker.duck() == GainChange(gain: Decibels.gain(-12), milliseconds: 100))
        #expect(ducker.release() == GainChange(gain: 1, milliseconds: 300))
        #expect(ducker.release() == nil)
        #expect(ducker.setVolume(0.3) == GainChange(gain: 0.3, milliseconds: 50))
        #expect(ducker.setVolume(0.3) == nil)
        #expect(ducker.target == GainChange(gain: 0.3, milliseconds: 0))
        #expect(Ducker(volume: 7).volume == 1)
    }
}
