import Basics
import Testing

@testable import GPIO

/// Runs a recognizer the way the button thread does: edges at their times, and every deadline at
/// exactly its time in between. Returns each gesture with the millisecond it was produced.
private func drive(
    _ settings: GestureRecognizer.Settings = .init(), edges: [(ms: Int64, pressed: Bool)],
    until end: Int64
) -> [(ButtonGesture, Int64)] {
    var r = GestureRecognizer(settings: settings)
    var out: [(ButtonGesture, Int64)] = []
    func runDeadlines(before t: Int64) {
        while let d = r.nextDeadline, d.nanoseconds <= t * 1_000_000 {
            let ms = d.nanoseconds / 1_000_000
            out += r.advance(to: d).map { ($0, ms) }
        }
    }
    for e in edges {
        runDeadlines(before: e.ms)
        out += r.edge(pressed: e.pressed, at: .milliseconds(e.ms)).map { ($0, e.ms) }
    }
    runDeadlines(before: end)
    out += r.advance(to: .milliseconds(end)).map { ($0, end) }
    return out
}

private func gestures(_ list: [(ButtonGesture, Int64)]) -> [ButtonGesture] { list.map(\.0) }

@Suite struct GestureRecognizerTests {
    @Test func tapIsReportedOnceTheReleaseSettles() {
        let out = drive(edges: [(0, true), (150, false)], until: 1000)
        #expect(gestures(out) == [.tap])
        #expect(out[0].1 == 170)  // release at 150 + 20 ms debounce
    }

    /// The mute gesture: a second tap pressed within 400 ms of the first's release. The first stays a tap
    /// (no delay for every tap); a third starts over; taps further apart are taps.
    @Test func aSecondTapSoonAfterTheFirstIsADoubleTap() {
        let double = drive(edges: [(0, true), (100, false), (300, true), (400, false)], until: 1000)
        #expect(gestures(double) == [.tap, .doubleTap])
        let triple = drive(edges: [(0, true), (100, false), (300, true), (400, false), (600, true), (700, false)], until: 1500)
        #expect(gestures(triple) == [.tap, .doubleTap, .tap])
        let apart = drive(edges: [(0, true), (100, false), (600, true), (700, false)], until: 1500)
        #expect(gestures(apart) == [.tap, .tap])
        let afterAHold = drive(edges: [(0, true), (900, false), (1000, true), (1100, false)], until: 2000)
        #expect(gestures(afterAHold) == [.holdBegan, .holdEnded(heldFor: .milliseconds(900)), .tap])
    }

    @Test func holdBeganAtThresholdAndHoldEndedWithTheWholeDuration() {
        let out = drive(edges: [(0, true), (1200, false)], until: 2000)
        #expect(gestures(out) == [.holdBegan, .holdEnded(heldFor: .milliseconds(1200))])
        #expect(out[0].1 == 400)
        #expect(out[1].1 == 1220)
    }

    @Test func longHoldArrivesWhileHeldAndTheHoldStillEnds() {
        let out = drive(edges: [(0, true), (3500, false)], until: 4000)
        #expect(gestures(out) == [.holdBegan, .longHold, .holdEnded(heldFor: .milliseconds(3500))])
        #expect(out.map(\.1) == [400, 3000, 3520])
    }

    @Test func stillHeldWithoutEdgesNeedsNoFurtherWakeUps() {
        var r = GestureRecognizer()
        #expect(r.edge(pressed: true, at: .milliseconds(0)).isEmpty)
        #expect(r.nextDeadline == .milliseconds(20))
        #expect(r.advance(to: .milliseconds(20)).isEmpty)
        #expect(r.isPressed)
        #expect(r.nextDeadline == .milliseconds(400))
        #expect(r.advance(to: .milliseconds(400)) == [.holdBegan])
        #expect(r.nextDeadline == .milliseconds(3000))
        #expect(r.advance(to: .milliseconds(9000)) == [.longHold])
        #expect(r.nextDeadline == nil)
    }

    @Test func contactBounceOnPressAndReleaseGivesOneTap() {
        let out = drive(
            edges: [
                (0, true), (2, false), (4, true), (7, false), (9, true),  // press bounces
                (200, false), (201, true), (203, false), (206, true), (208, false)  // release bounces
            ], until: 1000)
        #expect(gestures(out) == [.tap])
    }

    @Test func bounceDoesNotShortenAMeasuredHold() {
        let out = drive(edges: [(0, true), (3, false), (5, true), (1000, false), (1004, true), (1010, false)], until: 2000)
        #expect(gestures(out) == [.holdBegan, .holdEnded(heldFor: .milliseconds(1005))])  // 5 ... 1010
    }

    @Test func spikeShorterThanDebounceIsIgnored() {
        let out = drive(edges: [(100, true), (108, false), (500, true), (505, false)], until: 2000)
        #expect(out.isEmpty)
    }

    @Test func releaseJustBeforeTheHoldThresholdIsATapEvenIfItSettlesAfterIt() {
        // Release at 390 settles at 410, after the 400 ms hold deadline: still a tap.
        let out = drive(edges: [(0, true), (390, false)], until: 1000)
        #expect(gestures(out) == [.tap])
    }

    @Test func releaseBounceAcrossTheHoldThresholdDoesNotLoseTheHold() {
        // A 10 ms glitch at 395..405 is not a release: the hold begins once it is known to be a glitch.
        let out = drive(edges: [(0, true), (395, false), (405, true), (800, false)], until: 1000)
        #expect(gestures(out) == [.holdBegan, .holdEnded(heldFor: .milliseconds(800))])
        #expect(out[0].1 == 405)
    }

    @Test func pressedForExactlyTheHoldThresholdIsAHold() {
        let out = drive(GestureRecognizer.Settings(debounce: .zero), edges: [(0, true), (400, false)], until: 1000)
        #expect(gestures(out) == [.holdBegan, .holdEnded(heldFor: .milliseconds(400))])
    }

    @Test func thresholdsAreTheSettings() {
        let settings = GestureRecognizer.Settings(debounce: .milliseconds(5), hold: .seconds(1), longHold: .seconds(2))
        // 800 ms is a hold with the defaults but a tap here; a 7 ms spike passes a 5 ms debounce.
        #expect(gestures(drive(settings, edges: [(0, true), (800, false)], until: 3000)) == [.tap])
        #expect(gestures(drive(edges: [(0, true), (800, false)], until: 3000)).first == .holdBegan)
        #expect(gestures(drive(settings, edges: [(0, true), (7, false)], until: 100)) == [.tap])
        let long = drive(settings, edges: [(0, true), (2500, false)], until: 3000)
        #expect(long.map(\.1) == [1000, 2000, 2505])
    }

    @Test func defaultsMatchTheDesign() {
        let d = GestureRecognizer.Settings()
        #expect(d.debounce == .milliseconds(20))
        #expect(d.hold == .milliseconds(400))
        #expect(d.longHold == .seconds(3))
    }

    @Test func lateTicksCatchUpInOrder() {
        var r = GestureRecognizer()
        _ = r.edge(pressed: true, at: .milliseconds(0))
        #expect(r.advance(to: .milliseconds(5000)) == [.holdBegan, .longHold])
        // An edge dated before the recognizer's clock is taken at its clock.
        #expect(r.edge(pressed: false, at: .milliseconds(4000)).isEmpty)
        #expect(r.advance(to: .milliseconds(5020)) == [.holdEnded(heldFor: .milliseconds(5000))])
    }

    @Test func repeatedLevelIsIgnoredAndTimeNeverRunsBackwards() {
        var r = GestureRecognizer()
        _ = r.edge(pressed: true, at: .milliseconds(0))
        _ = r.edge(pressed: true, at: .milliseconds(10))
        #expect(r.advance(to: .milliseconds(30)).isEmpty)
        #expect(r.isPressed)
        #expect(r.advance(to: .milliseconds(10)).isEmpty)
        #expect(r.now == .milliseconds(30))
    }
}
