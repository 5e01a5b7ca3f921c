import AudioCore
import Realtime
import TestProcess
import Testing

@testable import Conversation

/// Barge-in and taps: what was actually rendered decides the truncate; tools are cancelled for real.
@Suite(.timeLimit(.minutes(3))) struct ConversationRunnerInterruptionTests {
    let base = ConversationRunnerTests()

    /// A direct spoken reply of `milliseconds` (no tool), left unfinished (no `response.done`).
    func startReply(_ link: FakeRealtimeLink, response: String = "R1", milliseconds: Int) {
        link.serverSends(ServerFrames.responseCreated(response))
        let samples = tone(milliseconds: milliseconds, frequency: ConversationRunnerTests.answerHz)
        for chunk in stride(from: 0, to: samples.count, by: 4_800) {
            link.serverSends(ServerFrames.audioDelta(response, "A_\(response)", samples: Array(samples[chunk..<min(chunk + 4_800, samples.count)])))
        }
    }

    /// Connected, the user's turn U1 taken, and a direct reply of `milliseconds` playing.
    func replyPlaying(milliseconds: Int) async throws -> (h: RunnerHarness, link: FakeRealtimeLink) {
        let s = try base.setup()
        let link = try await base.connect(s)
        await base.userTurn(link, "U1", s.h)
        startReply(link, milliseconds: milliseconds)
        await s.h.waitForState(.fillerSpeaking)
        return (s.h, link)
    }

    @Test func vadBargeInTruncatesAtWhatWasRenderedMinusDeviceDelay() async throws {
        let (h, link) = try await replyPlaying(milliseconds: 1_500)
        h.deviceDelay.withLock { $0 = 2_400 }  // 50 ms at 48 kHz still in the device
        for _ in 0..<50 { h.render(milliseconds: 10) }  // 500 ms left the mixer

        link.serverSends(ServerFrames.speechStarted("U2"))
        await h.waitForState(.userSpeaking)
        let truncate = try #require(link.sent(ofType: "conversation.item.truncate").first)
        #expect(truncate["item_id"]?.stringValue == "A_R1")
        #expect(truncate["content_index"]?.numberValue == 0)
        #expect(truncate["audio_end_ms"]?.numberValue == 450)
        #expect(link.sent(ofType: "response.cancel").count == 1, "interrupt_response is off: the appliance cancels")

        // The rest of the answer never plays (only the 5 ms de-click fade).
        let before = h.renderedLeft24k.count
        for _ in 0..<30 { h.render(milliseconds: 10) }
        let after = Array(h.renderedLeft24k[before...])
        #expect(SignalAnalysis.milliseconds(of: ConversationRunnerTests.answerHz, in: after, others: [300, ConversationRunnerTests.earconHz]) <= 10)
        #expect(h.logs.contains("barge-in"))
        try await h.stop()
    }

    @Test func tapWhileSpeakingCancelsTheResponseAndTruncatesAtThePlayhead() async throws {
        let (h, link) = try await replyPlaying(milliseconds: 400)
        for _ in 0..<25 { h.render(milliseconds: 10) }  // 250 ms played
        h.runner.tap()
        await h.waitForState(.processing)  // until the server confirms the cancel
        let sent = link.sentControlTypes
        #expect(Array(sent.suffix(2)) == ["response.cancel", "conversation.item.truncate"])
        #expect(link.sent(ofType: "conversation.item.truncate").first?["audio_end_ms"]?.numberValue == 250)
        link.serverSends(ServerFrames.responseDone("R1", status: "cancelled", reason: "client_cancelled"))
        await h.waitForState(.listening)
        try await h.stop()
    }

    @Test func tapWhileWaitingForJarvisCancelsTheRequest() async throws {
        let s = try base.setup()
        let h = s.h
        await s.jarvis.set(delay: .seconds(30))
        let link = try await base.connect(s)
        await base.userTurn(link, "U1", h)
        h.startPlayback(speed: 8)
        base.fillerAndCall(link, query: "book a table")
        await h.waitForState(.waitingForJarvis)
        #expect((await h.runner.status()).toolsRunning == 1)
        h.runner.tap()
        await h.waitForState(.listening)
        #expect(await waitUntil { await s.jarvis.cancelled == 1 }, "the Jarvis request was cancelled (its connection closed)")
        let output = try #require(link.sent(ofType: "conversation.item.create").last)
        #expect(output["item"]?["output"]?.stringValue == ConversationConfiguration().toolCancelledMessage)
        #expect((await h.runner.status()).toolsRunning == 0)
        try await h.stop()
    }

    @Test func tapWithNothingElseToStopStopsMedia() async throws {
        let s = try base.setup()
        let h = s.h
        h.runner.mediaChanged(playing: true)
        let link = try await base.connect(s)
        await base.userTurn(link, "U1", h)
        // Processing: the first tap cancels the answer the appliance asked for (create_response is off);
        // with no speech and no tool left, the second stops media.
        h.runner.tap()
        #expect(await waitUntil { link.sent(ofType: "response.cancel").count == 1 })
        #expect(h.mediaStops.withLock { $0 } == 0)
        h.runner.tap()
        #expect(await waitUntil { h.mediaStops.withLock { $0 } == 1 })
        _ = link
        try await h.stop()
    }
}
