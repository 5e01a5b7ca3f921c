import Testing

@testable import EchoControl

@Test func nearEndDetectorNeedsItsOnsetAndHoldsItsHangover() {
    var detector = NearEndDetector(margin: 5, bandFraction: 0.3, onsetFrames: 3, hangoverFrames: 2)
    // 3 of 10 bands above is enough, 2 is not; two frames are not an onset;
    // the verdict lasts until `hangoverFrames` frames have passed since the last frame above (that one included).
    let bandsAbove = [3, 3, 2, 3, 3, 4, 0, 0, 0]
    let verdicts = bandsAbove.map { detector.update(bandsAbove: $0, bandCount: 10) }
    #expect(verdicts == [false, false, false, false, false, true, true, false, false])
}

@Test func nearEndDetectorHoldsBackAStartUntilItMayStart() {
    var detector = NearEndDetector(margin: 5, bandFraction: 0.3, onsetFrames: 2, hangoverFrames: 1)
    // The run counts on while the start is held back; once on, the verdict holds whatever `mayStart` says.
    let frames: [(above: Int, mayStart: Bool)] = [
        (5, false), (5, false), (5, false), (5, true), (5, false), (0, false),
        (5, false), (5, false)
    ]
    let verdicts = frames.map { detector.update(bandsAbove: $0.above, bandCount: 10, mayStart: $0.mayStart) }
    #expect(verdicts == [false, false, false, true, true, false, false, false])
}

@Test func nearEndDetectorStartsAtOnceWhereTheCallerHeardTheOnset() {
    var detector = NearEndDetector(margin: 5, bandFraction: 0.3, onsetFrames: 3, hangoverFrames: 1)
    // A counted frame whose onset the caller heard in earlier frames starts the verdict at once; an uncounted
    // one does not, and a later run needs its own onset again.
    let frames: [(counted: Bool, onsetHeard: Bool)] = [
        (false, true), (true, true), (false, false), (false, false),
        (true, false), (true, false), (true, false)
    ]
    let verdicts = frames.map { detector.update(counted: $0.counted, onsetHeard: $0.onsetHeard) }
    #expect(verdicts == [false, true, false, false, false, false, true])
}
