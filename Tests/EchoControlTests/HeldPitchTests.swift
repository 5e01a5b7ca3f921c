import Testing

@testable import EchoControl

@Suite struct HeldPitchTests {
    @Test func aPitchHeldWithinTheToleranceCountsFrameByFrame() {
        var pitch = HeldPitch(toleranceDivisor: 20)
        #expect(pitch.update(differingLag: 157) == 1)
        #expect(pitch.update(differingLag: 153) == 2, "4 samples is within a 20th of 153")
        #expect(pitch.update(differingLag: 158) == 3)
        #expect(pitch.frames == 3)
    }

    @Test func aJumpOrAFrameWithoutADifferingPitchStartsAgain() {
        var pitch = HeldPitch(toleranceDivisor: 20)
        _ = pitch.update(differingLag: 100)
        #expect(pitch.update(differingLag: 40) == 1, "an octave and more away is another pitch")
        #expect(pitch.update(differingLag: 44) == 1, "4 samples is more than a 20th of 44")
        #expect(pitch.update(differingLag: nil) == 0)
        #expect(pitch.update(differingLag: 44) == 1, "a gap ends the run")
    }

    @Test func upToGapFramesWithoutThePitchDoNotEndTheHold() {
        var pitch = HeldPitch(toleranceDivisor: 10, gapFrames: 2)
        #expect(pitch.update(differingLag: 196) == 1)
        #expect(pitch.update(differingLag: nil) == 0, "a frame measured unvoiced")
        #expect(pitch.update(differingLag: nil) == 0)
        #expect(pitch.update(differingLag: 190) == 2, "held across two frames without it")
        #expect(pitch.update(differingLag: nil) == 0)
        #expect(pitch.update(differingLag: 52) == 1, "another pitch after a gap starts again")
        _ = pitch.update(differingLag: nil)
        _ = pitch.update(differingLag: nil)
        _ = pitch.update(differingLag: nil)
        #expect(pitch.update(differingLag: 52) == 1, "three frames without it end the hold")
    }
}
