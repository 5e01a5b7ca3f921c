import Realtime
import Testing

@testable import Conversation

/// The quiet period ends a hands-free conversation, but not while the local near-end detector hears the
/// user and the server's VAD has yet to report his turn (a slow network or server): then once more, a
/// whole quiet period after that speech.
@Suite struct QuietPeriodTests {
    /// Hands-free, listening since `now`, with the service's rule; quiet period 10 s.
    func listening(rule: BargeInRule = BargeInRule(localDetector: true)) -> EngineHarness {
        var h = EngineHarness(configuration: .init(tools: [AskJarvisTool.definition.functionTool], bargeIn: rule))
        h.startHandsFree()
        #expect(h.state == .listening)
        return h
    }

    func ended(_ h: EngineHarness) -> Bool {
        h.state == .idle && h.last.contains(.playEarcon(.done))
    }

    @Test func nobodyTalkingEndsTheConversationOnTime() {
        var h = listening()
        let start = h.now
        #expect(h.fireNextTimer() == .quietPeriod)
        #expect(h.now.milliseconds(since: start) == 10_000)
        #expect(ended(h))
    }

    @Test func speechTheServerHasNotReportedYetKeepsTheConversationAQuietPeriodAfterIt() {
        var h = listening()
        let start = h.now
        h.handle(.nearEndSpeech(true), after: 8_000)
        h.handle(.nearEndSpeech(false), after: 1_500)  // he stopped talking 9.5 s in
        #expect(h.fireNextTimer() == .quietPeriod)
        #expect(h.state == .listening, "he talked 500 ms ago")
        #expect(
            h.last.contains(
                .log(
                    .info,
                    "quiet period over, but someone near the device talked 500 ms ago: "
                        + "waiting 9500 ms more for the server to hear a turn")))
        #expect(h.engine.armedTimers[.quietPeriod] == start + .milliseconds(19_500))
        // The server's turn arrives late: the conversation goes on as usual.
        h.server(.speechStarted(audioStartMs: 8_000, itemID: "U1"), after: 3_000)
        #expect(h.state == .userSpeaking)
    }

    @Test func theWaitIsOncePerStretchOfListening() {
        var h = listening()
        let start = h.now
        h.handle(.nearEndSpeech(true), after: 9_000)
        #expect(h.fireNextTimer() == .quietPeriod)
        #expect(h.state == .listening)
        #expect(h.engine.armedTimers[.quietPeriod] == start + .milliseconds(20_000), "still talking: a whole period from now")
        #expect(
            h.last.contains(
                .log(
                    .info,
                    "quiet period over, but someone near the device is talking: "
                        + "waiting 10000 ms more for the server to hear a turn")))
        // A sound the server never takes for speech goes on: the conversation ends the second time.
        h.handle(.nearEndSpeech(false), after: 9_000)
        h.handle(.nearEndSpeech(true), after: 500)
        #expect(h.fireNextTimer() == .quietPeriod)
        #expect(ended(h))
    }

    @Test func speechBeforeThisStretchOfListeningDoesNotCount() {
        var h = listening()
        h.handle(.nearEndSpeech(true), after: 100)
        h.handle(.nearEndSpeech(false), after: 900)
        h.server(.speechStarted(audioStartMs: 100, itemID: "U1"))
        h.server(.speechStopped(audioEndMs: 1_000, itemID: "U1"), after: 100)
        h.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")))
        h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")), after: 200)
        #expect(h.state == .listening)
        #expect(h.fireNextTimer() == .quietPeriod)
        #expect(ended(h), "the user's last words were his answered turn, more than a quiet period ago")
    }

    @Test func withoutTheLocalDetectorTheQuietPeriodIsTheServersAlone() {
        var h = listening(rule: BargeInRule(localDetector: false))
        h.handle(.nearEndSpeech(true), after: 9_000)
        #expect(h.fireNextTimer() == .quietPeriod)
        #expect(ended(h))
    }
}
