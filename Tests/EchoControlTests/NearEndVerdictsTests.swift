import Glibc
import TestSupport
import Testing

@testable import EchoControl

/// `NearEndVerdicts`: when near-end speech (stops the assistant) and possible near-end speech (pauses it) may
/// start, given the bands the suppressor counted and the output's and the reference's pitch.
@Suite struct NearEndVerdictsTests {
    static let frame = 256, windowLength = 512, bandCount = 18

    /// The suppressor's 16 ms frames at 16 kHz: a 32 ms onset, a 200 ms hangover.
    func verdicts() -> NearEndVerdicts {
        NearEndVerdicts(
            windowLength: Self.windowLength, sampleRate: 16000, frameMilliseconds: 16, onsetFrames: 2,
            hangoverFrames: 13)
    }

    /// Decaying glottal pulses every `period` samples, as the chain tests make their voices.
    struct Voice {
        let period: Int
        func callAsFunction(_ n: Int) -> Float {
            var glottis: Float = 0
            // The pulse train's steady state at sample n: the last few pulses' decayed sum.
            for k in 0..<4 { glottis += 9000 * powf(0.7, Float(n % period + k * period)) }
            return glottis
        }
    }

    /// One frame's windows of continuous signals: the output as the inverse transform leaves it (times the
    /// analysis window), the reference unwindowed, and the window (square-root Hann).
    final class Windows {
        let output = UnsafeMutablePointer<Float>.allocate(capacity: windowLength)
        let reference = UnsafeMutablePointer<Float>.allocate(capacity: windowLength)
        let window = UnsafeMutablePointer<Float>.allocate(capacity: windowLength)

        init() {
            for i in 0..<windowLength {
                window[i] = sqrtf(0.5 - 0.5 * cosf(2 * .pi * (Float(i) + 0.5) / Float(windowLength)))
            }
        }

        deinit {
            output.deallocate()
            reference.deallocate()
            window.deallocate()
        }

        func fill(frame f: Int, output out: (Int) -> Float, reference ref: (Int) -> Float) {
            for i in 0..<windowLength {
                let n = f * frame + i
                output[i] = out(n) * window[i]
                reference[i] = ref(n)
            }
        }
    }

    /// Syllables of 160 ms, then 48 ms 30 dB down: a far end that sounds like speech.
    func voicePower(_ f: Int) -> Float { f % 13 < 10 ? 1e7 : 1e4 }

    /// Runs `frames` frames; returns the first frame each verdict was on (nil: never).
    func run(
        _ v: NearEndVerdicts, frames: Int, farEnd: (Int) -> Float?, speechBandsAbove: Int, overEcho: Float,
        output: (Int) -> Float, reference: (Int) -> Float
    ) -> (speech: Int?, possible: Int?) {
        let w = Windows()
        var speech: Int?, possible: Int?
        for f in 0..<frames {
            let power = farEnd(f)
            v.farEndFrame(power: power ?? 0, active: power != nil)
            w.fill(frame: f, output: output, reference: reference)
            let verdict = v.update(
                speechBandsAbove: speechBandsAbove, bandCount: Self.bandCount, speechEnergy: overEcho * 1e6,
                predicted: 1e6, farEndActive: power != nil, output: w.output,
                reference: w.reference, window: w.window)
            if verdict.speech && speech == nil { speech = f }
            if verdict.possible && possible == nil { possible = f }
        }
        return (speech, possible)
    }

    /// 40 frames of `played` alone (the chain's frames under a speech-like far end), then 20 more with `output`
    /// over the margin in `speechBandsAbove` bands at `overEcho` of the predicted echo; the verdicts' first frames
    /// among those 20.
    func overAPlayedVoice(
        _ played: Voice, speechBandsAbove: Int, overEcho: Float,
        output: (Int) -> Float
    ) -> (speech: Int?, possible: Int?) {
        let v = verdicts()
        _ = run(
            v, frames: 40, farEnd: { voicePower($0) }, speechBandsAbove: 0, overEcho: 0.1,
            output: { _ in 0 }, reference: played.callAsFunction)
        return run(
            v, frames: 20, farEnd: { voicePower($0 + 40) }, speechBandsAbove: speechBandsAbove, overEcho: overEcho,
            output: output, reference: played.callAsFunction)
    }

    @Test func noiseNeverStartsAVerdictHoweverManyBandsCount() {
        var white = CaptureChainTestSignals.White(seed: 11)
        var noise = [Float](repeating: 0, count: 60 * Self.frame + Self.windowLength)
        for i in noise.indices { noise[i] = 3000 * white.next() }
        let heard = run(
            verdicts(), frames: 60, farEnd: { _ in nil }, speechBandsAbove: Self.bandCount, overEcho: 10,
            output: { noise[$0] }, reference: { _ in 0 })
        #expect(heard.speech == nil && heard.possible == nil)
    }

    @Test func aVoicedRunStartsBothVerdictsOnItsSecondFrame() {
        let heard = run(
            verdicts(), frames: 20, farEnd: { _ in nil }, speechBandsAbove: Self.bandCount, overEcho: 10,
            output: Voice(period: 128).callAsFunction, reference: { _ in 0 })
        #expect(heard.speech == 1)
        #expect(heard.possible == 1)
    }

    /// The echo of a played voice repeats at the played pitch: under its predicted level as a whole, the
    /// verdict that stops waits for more; over it, it starts.
    @Test func atThePlayedPitchTheStrictVerdictStartsOnlyOverTheEcho() {
        let played = Voice(period: 128)
        let under = run(
            verdicts(), frames: 40, farEnd: { _ in 1e6 }, speechBandsAbove: Self.bandCount, overEcho: 0.5,
            output: played.callAsFunction, reference: played.callAsFunction)
        #expect(under.speech == nil)
        #expect(under.possible == nil, "a far end that plays on (music) never lets possible near-end speech start")
        let over = run(
            verdicts(), frames: 40, farEnd: { _ in 1e6 }, speechBandsAbove: Self.bandCount, overEcho: 2,
            output: played.callAsFunction, reference: played.callAsFunction)
        #expect(over.speech == 1)
    }

    /// A talker whose pitch the played voice lacks, 5 dB under its echo and over the margin in one band: the
    /// possible near-end speech starts once he has held it for two frames (then its 32 ms onset); at the played pitch
    /// the same evidence starts nothing.
    @Test func aHeldPitchThePlayedVoiceLacksStartsTheLooserVerdictWithOneBand() {
        let played = Voice(period: 80), talker = Voice(period: 128)
        let heard = overAPlayedVoice(played, speechBandsAbove: 1, overEcho: 0.3, output: talker.callAsFunction)
        #expect(heard.possible == 2)
        #expect(heard.speech == nil)

        let atItsPitch = overAPlayedVoice(played, speechBandsAbove: 1, overEcho: 0.3, output: played.callAsFunction)
        #expect(atItsPitch.possible == nil && atItsPitch.speech == nil)
    }

    /// A deeper talker (83 Hz) under the echo of a higher played voice, over the margin in one band: his pitch held
    /// over two frames is possible near-end speech's onset, so it starts on the second frame. Every third of his frames
    /// measures unvoiced (his period against the frame grid); the hold survives it (`heldPitchGapFrames`), but the
    /// frame breaks a 32 ms onset, so further under the echo he is heard only on the fifth frame. At a shorter
    /// period (128 samples) the held pitch still needs the onset, and so it does within a 10th of the played
    /// period, which a deep played voice's echo holds too.
    @Test func aDeepTalkersHeldPitchIsTheLooserVerdictsOnset() {
        let cases: [(played: Int, talker: Int, overEcho: Float, heardAt: Int?)] = [
            (128, 192, 0.5, 1), (128, 192, 0.3, 4), (80, 128, 0.5, 2), (192, 208, 0.5, 6)
        ]
        for c in cases {
            let verdict = overAPlayedVoice(
                Voice(period: c.played), speechBandsAbove: 1, overEcho: c.overEcho,
                output: Voice(period: c.talker).callAsFunction)
            #expect(verdict.possible == c.heardAt, "\(c): \(verdict)")
            #expect(verdict.speech == nil)
        }
    }

    /// A talker at the played voice's own pitch who stands over its echo as a whole, over the margin in only 2
    /// of the 18 bands (under the prompt verdict's 20 %): possible near-end speech starts once the whole has stood over
    /// the echo for 64 ms, and its 32 ms onset; with one band, or under the echo, it does not.
    @Test func aTalkerLongOverTheEchoIsHeardAtThePlayedPitch() {
        let played = Voice(period: 128)
        let cases: [(overEcho: Float, bands: Int, heardAt: Int?)] = [(2, 2, 4), (2, 1, nil), (0.9, 2, nil)]
        for c in cases {
            let verdict = overAPlayedVoice(
                played, speechBandsAbove: c.bands, overEcho: c.overEcho,
                output: played.callAsFunction)
            #expect(verdict.possible == c.heardAt, "\(c): \(verdict)")
            #expect(verdict.speech == nil)
        }
    }

    /// A deep played voice (83 Hz) through a small loudspeaker that cannot play its fundamental can repeat at a
    /// harmonic's period: under the echo as a whole, or over it for less than three frames in a row, a third or
    /// a quarter of the played period is no pitch of a talker, in 20 % of the bands or held in one. Half of it
    /// is (a voice an octave over the played one), and so is one between the harmonics, at once; a harmonic that
    /// stays over the echo is from its third frame there.
    @Test func aPitchAtAHarmonicOfThePlayedOneIsTheEchosUnderIt() {
        let played = Voice(period: 192)
        let cases: [(period: Int, overEcho: Float, bands: Int, heardAt: Int?)] = [
            (64, 0.3, 4, nil), (64, 0.3, 1, nil), (48, 0.3, 4, nil),
            (96, 0.3, 4, 1), (120, 0.3, 4, 1), (120, 2, 4, 1), (64, 2, 4, 2), (64, 2, 1, 4)
        ]
        for c in cases {
            let verdict = overAPlayedVoice(
                played, speechBandsAbove: c.bands, overEcho: c.overEcho,
                output: Voice(period: c.period).callAsFunction)
            #expect(verdict.possible == c.heardAt, "\(c): \(verdict)")
        }
    }
}
