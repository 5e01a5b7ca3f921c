import Testing

@testable import AudioEngine

/// How much of the capture chain runs per frame: the schedule alone, frame by frame (the frame count is its clock).
@Suite struct CaptureScheduleTests {
    @Test(arguments: [
        // listening, conversation, far end playing → work
        (false, false, false, CaptureWork.bypass),
        (false, false, true, .track),
        (false, true, false, .bypass),
        (false, true, true, .process),
        (true, false, false, .process),
        (true, false, true, .process),
        (true, true, true, .process)
    ])
    func whatRunsWithoutAPress(listening: Bool, conversation: Bool, farEnd: Bool, expected: CaptureWork) {
        var schedule = CaptureSchedule(wakeFrames: 10)
        #expect(schedule.work(listening: listening, conversation: conversation, farEndActive: farEnd, presses: 0) == expected)
    }

    /// Radio plays, nobody listens: the chain tracks until the button goes down, then runs in full for the
    /// wake (the press's frame and the 9 after it), then tracks again when no conversation followed.
    @Test func aPressRunsTheWholeChainForTheWakeThenItTracksAgain() {
        var schedule = CaptureSchedule(wakeFrames: 10)
        var works: [CaptureWork] = []
        for frame in 0..<30 {
            works.append(schedule.work(listening: false, conversation: false, farEndActive: true, presses: frame >= 5 ? 1 : 0))
        }
        #expect(works[0..<5].allSatisfy { $0 == .track })
        #expect(works[5..<15].allSatisfy { $0 == .process })
        #expect(works[15...].allSatisfy { $0 == .track })
    }

    /// The hold that follows the press starts listening within the wake: the chain never goes back to
    /// tracking in between, and a second press restarts the wake.
    @Test func aHoldWithinTheWakeKeepsTheChainRunning() {
        var schedule = CaptureSchedule(wakeFrames: 10)
        var works: [CaptureWork] = []
        for frame in 0..<40 {
            let presses = frame >= 20 ? 2 : frame >= 2 ? 1 : 0
            works.append(schedule.work(listening: (8..<12).contains(frame), conversation: false, farEndActive: true, presses: presses))
        }
        #expect(works[0..<2].allSatisfy { $0 == .track })
        #expect(works[2..<12].allSatisfy { $0 == .process })
        #expect(works[12..<20].allSatisfy { $0 == .track }, "\(works)")
        #expect(works[20..<30].allSatisfy { $0 == .process })
        #expect(works[30...].allSatisfy { $0 == .track })
    }

    /// Nothing plays: a press changes nothing (the mic as it is already is a clean pre-roll).
    @Test func aPressInSilenceLeavesTheChainSkipped() {
        var schedule = CaptureSchedule(wakeFrames: 10)
        #expect(schedule.work(listening: false, conversation: false, farEndActive: false, presses: 1) == .bypass)
        #expect(schedule.work(listening: false, conversation: false, farEndActive: true, presses: 1) == .process)
    }
}
