import Testing

@testable import EchoControl

/// `SpeechLikeFarEnd`: a far end with speech's gaps opens it, one that plays on (music) keeps it closed.
@Suite struct SpeechLikeFarEndTests {
    /// 16 ms frames: a 2 s window (125), 500 ms to open (31), 2 s held closed after a steady window (125).
    func rhythm() -> SpeechLikeFarEnd { SpeechLikeFarEnd(frameMilliseconds: 16) }

    /// Syllables of 160 ms, then 48 ms 30 dB down: what a voice does several times a second.
    func voice(_ frame: Int) -> Float { frame % 13 < 10 ? 1e7 : 1e4 }

    @Test func aVoiceOpensItOnceHalfASecondHasPlayed() {
        var r = rhythm()
        var opened: Int?
        for f in 0..<200 {
            r.update(power: voice(f), farEndActive: true)
            if r.isOpen && opened == nil { opened = f }
            #expect(!r.isSteady, "frame \(f)")
        }
        #expect(opened == r.minimumFrames - 1)
        #expect(r.isOpen)
    }

    @Test func musicThatPlaysOnKeepsItClosedAndHoldsItClosedAfter() {
        var r = rhythm()
        // Loud and soft passages 10 dB apart, never 20 dB under the loudest.
        for f in 0..<400 {
            r.update(power: f % 40 < 20 ? 1e7 : 1e6, farEndActive: true)
            #expect(!r.isOpen, "frame \(f)")
            #expect(r.isSteady == (f >= r.minimumFrames - 1), "frame \(f): steady only once it can tell")
        }
        // A voice after it: the window needs its dips (5 % of 125 frames), then the hold runs out.
        var opened: Int?, unsteady: Int?
        for f in 0..<400 {
            r.update(power: voice(f), farEndActive: true)
            if r.isOpen && opened == nil { opened = f }
            if !r.isSteady && unsteady == nil { unsteady = f }
        }
        let first = try! #require(opened)
        #expect(first > r.holdFrames && first < r.holdFrames + r.windowFrames / 2, "opened at frame \(first)")
        // No longer music as soon as the window holds the voice's gaps, without the hold.
        let voiceHeard = try! #require(unsteady)
        #expect(voiceHeard < r.windowFrames / 2, "steady until frame \(voiceHeard)")
    }

    /// With nothing playing there is no echo to mistake; the pause is left out of the window, so the next
    /// stretch of music is still known as music.
    @Test func silenceOpensItButIsLeftOutOfTheWindow() {
        var r = rhythm()
        for f in 0..<200 { r.update(power: f % 40 < 20 ? 1e7 : 1e6, farEndActive: true) }
        r.update(power: 0, farEndActive: false)
        #expect(r.isOpen && !r.isSteady)
        for _ in 0..<100 { r.update(power: 0, farEndActive: false) }
        r.update(power: 1e7, farEndActive: true)
        #expect(!r.isOpen && r.isSteady, "the music before the pause is still in the window")
    }
}
