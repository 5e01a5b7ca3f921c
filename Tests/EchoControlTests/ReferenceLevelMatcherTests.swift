import Glibc
import Testing

@testable import EchoControl

/// Feeds `frames` frames of a reference at `referenceRMS` (peak 2× that) and a mic `echoDB` louder (in
/// `talkerFifths` of every five frames `talkerDB` louder still); returns how many times the gain changed.
private func feed(
    _ matcher: inout ReferenceLevelMatcher, frames: Int, referenceRMS: Float, echoDB: Float,
    talkerFifths: Int = 0, talkerDB: Float = 0
) -> Int {
    let n = 256
    let reference = referenceRMS * referenceRMS * Float(n)
    var changes = 0
    for f in 0..<frames {
        let talking = f % 5 < talkerFifths
        let mic = reference * powf(10, (echoDB + (talking ? talkerDB : 0)) / 10)
        if matcher.observe(referenceEnergy: reference, referencePeak: Int16(2 * referenceRMS), micEnergy: mic, frameSize: n) {
            changes += 1
        }
    }
    return changes
}

private func matcher() -> ReferenceLevelMatcher { ReferenceLevelMatcher(maxShift: 4, settleFrames: 62, peakHoldFrames: 3750) }

@Test func aReferenceFarBelowItsEchoIsRaisedByAPowerOfTwoAfterASecond() {
    var m = matcher()
    let early = feed(&m, frames: 61, referenceRMS: 300, echoDB: 20)
    #expect(early == 0 && m.gain == 1, "no decision before the settle time")
    let later = feed(&m, frames: 400, referenceRMS: 300, echoDB: 20)
    #expect(later == 1)
    // 20 dB: 8x (18 dB) leaves it within 3 dB.
    #expect(m.gain == 8)
}

@Test func aReferenceAsLoudAsItsEchoIsLeftAlone() {
    var m = matcher()
    let changes = feed(&m, frames: 1000, referenceRMS: 3000, echoDB: 2)
    #expect(changes == 0 && m.gain == 1)
    var off = ReferenceLevelMatcher(maxShift: 0, settleFrames: 62, peakHoldFrames: 3750)
    let offChanges = feed(&off, frames: 1000, referenceRMS: 300, echoDB: 20)
    #expect(offChanges == 0 && off.gain == 1)
}

@Test func aMicThatHearsNothingMostOfTheTimeRaisesNothing() {
    var m = matcher()
    // A digitally silent mic (muted, or a test device) with a talker now and then: no echo is heard.
    let changes = feed(&m, frames: 2000, referenceRMS: 300, echoDB: -200, talkerFifths: 1, talkerDB: 230)
    #expect(changes == 0 && m.gain == 1)
}

@Test func theRaisedReferenceKeepsHeadroomBelowHalfScale() {
    var m = matcher()
    // Peak 3000: 8x would reach 24000, over half scale; 4x (12000) is taken instead.
    _ = feed(&m, frames: 500, referenceRMS: 1500, echoDB: 24)
    #expect(m.gain == 4)
}

@Test func aTalkerOverTheFarEndDoesNotRaiseTheGain() {
    var m = matcher()
    // A talker 12 dB above the echo in 60 % of the frames: the lower quartile still follows the echo (8 dB:
    // 2x; the median would take 20 dB: 8x).
    _ = feed(&m, frames: 2000, referenceRMS: 300, echoDB: 8, talkerFifths: 3, talkerDB: 12)
    #expect(m.gain == 2)
}

@Test func theGainIsNeverLoweredButForAFrameItWouldClip() {
    var m = matcher()
    _ = feed(&m, frames: 300, referenceRMS: 300, echoDB: 20)
    #expect(m.gain == 8)
    // The echo gets quieter (volume down): a reference louder than its echo is what the canceller expects.
    let quieter = feed(&m, frames: 1000, referenceRMS: 300, echoDB: 0)
    #expect(quieter == 0 && m.gain == 8)
    // A frame whose peak 8x would clip: lowered at once, to the largest gain that does not.
    let lowered = m.observe(referenceEnergy: 1e9, referencePeak: 10_000, micEnergy: 1e9, frameSize: 256)
    #expect(lowered && m.gain == 2)
}

@Test func aMicStillSilentWhenTheFarEndStartsDoesNotMakeTheFirstGainAStepShort() {
    var m = matcher()
    // The echo path's start-up (a USB array's buffering, the chain's delay line): the first 8 frames of
    // far end reach a mic that has heard nothing yet. Under load the CLI test saw 4x taken first, then 8x.
    let startUp = feed(&m, frames: 8, referenceRMS: 300, echoDB: -200)
    let later = feed(&m, frames: 400, referenceRMS: 300, echoDB: 20)
    #expect(startUp + later == 1 && m.gain == 8, "\(startUp + later) changes, gain \(m.gain)")
}
