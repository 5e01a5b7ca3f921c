import Testing
@testable import AudioEngine

@Test func nearEndDetectorNeedsItsOnsetAndHoldsItsHangover() {
    var detector = NearEndDetector(margin: 5, bandFraction: 0.3, onsetFrames: 3, hangoverFrames: 2)
    // 3 of 10 bands above is enough, 2 is not; two frames are not an onset;
    // the verdict lasts until `hangoverFrames` frames have passed since the last frame above (that one included).
    let bandsAbove = [3, 3, 2, 3, 3, 4, 0, 0, 0]
    let verdicts = bandsAbove.map { detector.update(bandsAbove: $0, bandCount: 10) }
    #expect(verdicts == [false, false, false, false, false, true, true, false, false])
}
