import Testing

@testable import Conversation

/// The response in flight as one phase: request, created, done; deferral while one is active; stops
/// before and after the id is known; giving up.
@Suite struct ResponseTrackerTests {
    @Test func requestCreatedDoneWalksThePhases() {
        var tracker = ResponseTracker()
        #expect(tracker.phase == .none && !tracker.isActive)
        let sent = tracker.request(isAnswer: true)
        #expect(sent, "nothing active: response.create goes out now")
        #expect(tracker.phase == .requested(isAnswer: true) && tracker.isActive)
        let accepted = tracker.created(id: "sent")
        #expect(accepted)
        #expect(tracker.phase == .running(id: "sent", isAnswer: true))
        #expect(tracker.speaksAnswer("sent") && !tracker.speaksAnswer("accepted"))
        tracker.done()
        let deferred = tracker.takeDeferred()
        #expect(tracker.phase == .none && deferred == nil)
    }

    @Test func aServerInitiatedResponseIsNotAnAnswer() {
        var tracker = ResponseTracker()
        let accepted = tracker.created(id: "vad")
        #expect(accepted)
        #expect(tracker.phase == .running(id: "vad", isAnswer: false) && !tracker.speaksAnswer("vad"))
    }

    @Test func aSecondRequestWaitsForDoneAndKeepsBeingAnAnswer() {
        var tracker = ResponseTracker()
        let sent1 = tracker.request(isAnswer: false)
        #expect(sent1)
        let sent2 = tracker.request(isAnswer: true)
        #expect(!sent2, "never two at once")
        let sent3 = tracker.request(isAnswer: false)
        #expect(!sent3)
        #expect(tracker.phase == .requested(isAnswer: false), "the deferral does not touch the one in flight")
        let accepted = tracker.created(id: "r1")
        #expect(accepted)
        tracker.done()
        let deferred1 = tracker.takeDeferred()
        #expect(deferred1 == true, "one deferred request, an answer if any request was")
        let deferred2 = tracker.takeDeferred()
        #expect(deferred2 == nil, "taken once")
        let sent4 = tracker.request(isAnswer: true)
        #expect(sent4)
    }

    @Test func activeResponseErrorDefersTheRequestToTheRunningOne() {
        var tracker = ResponseTracker()
        let sent = tracker.request(isAnswer: true)
        #expect(sent)
        tracker.serverHasActiveResponse()
        #expect(tracker.phase == .requested(isAnswer: false), "the running one (a VAD response) is not our answer")
        let accepted = tracker.created(id: "vad")
        #expect(accepted)
        #expect(!tracker.speaksAnswer("vad"))
        tracker.done()
        let deferred1 = tracker.takeDeferred()
        #expect(deferred1 == true, "our answer is asked for again")

        var idle = ResponseTracker()
        idle.serverHasActiveResponse()
        #expect(idle.isActive && idle.phase == .requested(isAnswer: false))
        idle.done()
        let deferred2 = idle.takeDeferred()
        #expect(deferred2 == false)
    }

    @Test func stoppingBeforeTheIdIsKnownDiscardsTheNextCreated() {
        var tracker = ResponseTracker()
        let sent1 = tracker.request(isAnswer: false)
        #expect(sent1)
        let stopped = tracker.stopCurrent()
        #expect(stopped)
        #expect(tracker.isActive && tracker.currentIsDiscarded, "still in flight, but its audio is dropped")
        let accepted1 = tracker.created(id: "r1")
        #expect(!accepted1, "its response.created: cancel it")
        #expect(tracker.isDiscarded("r1") && tracker.currentIsDiscarded)
        tracker.done()
        let sent2 = tracker.request(isAnswer: false)
        #expect(sent2)
        let accepted2 = tracker.created(id: "r2")
        #expect(accepted2, "the stop was claimed once")
        #expect(!tracker.currentIsDiscarded && !tracker.isDiscarded("r2") && tracker.isDiscarded("r1"))
    }

    @Test func stoppingARunningResponseDiscardsItById() {
        var tracker = ResponseTracker()
        let stopped1 = tracker.stopCurrent()
        #expect(!stopped1, "nothing in flight")
        let accepted = tracker.created(id: "r1")
        #expect(accepted)
        let stopped2 = tracker.stopCurrent()
        #expect(stopped2)
        #expect(tracker.isDiscarded("r1") && !tracker.isDiscarded(nil) && !tracker.isDiscarded(""))
        tracker.stop(responseID: "played")
        #expect(tracker.isDiscarded("played"))
    }

    @Test func abandoningForgetsTheResponseAndTheDeferredRequest() {
        var tracker = ResponseTracker()
        let abandoned1 = tracker.abandon()
        #expect(!abandoned1, "nothing to give up")
        let sent1 = tracker.request(isAnswer: true)
        #expect(sent1)
        let sent2 = tracker.request(isAnswer: true)
        #expect(!sent2)
        let abandoned2 = tracker.abandon()
        #expect(abandoned2)
        let deferred = tracker.takeDeferred()
        #expect(tracker.phase == .none && deferred == nil)
        let accepted = tracker.created(id: "late")
        #expect(!accepted, "the abandoned one's late response.created is cancelled")
        #expect(tracker.isDiscarded("late"))
    }

    @Test func anAnnouncementIsSentAsAnAnswerWithoutDeferral() {
        var tracker = ResponseTracker()
        tracker.sent(isAnswer: true)
        #expect(tracker.phase == .requested(isAnswer: true))
        let accepted = tracker.created(id: nil)
        #expect(accepted)
        #expect(tracker.speaksAnswer("any"), "a response without an id speaks for every delta")
    }
}
