import AudioCore
import Realtime
import TestProcess
import TestSupport
import Testing

@testable import Conversation

/// `say` and the voice volume through the whole runner: over loopback to the Realtime stand-in, and with
/// the fake transport for the failure cases.
@Suite(.timeLimit(.minutes(3))) struct ConversationRunnerSayTests {
    static let answerHz = 660.0

    @Test func sayReturnsOnceTheAnnouncementHasBeenHeard() async throws {
        let s = try await MediaLoopback.start(calls: [], answerAudio: tone(milliseconds: 500, frequency: Self.answerHz), earcons: { _ in nil })
        let h = s.h
        h.startPlayback(speed: 4)
        let outcome = await h.runner.say("The laundry is done.")
        #expect(outcome == .spoken)
        let heard = SignalAnalysis.milliseconds(of: Self.answerHz, in: h.renderedLeft24k, others: [])
        #expect(heard >= 400, "the announcement was rendered before say returned: \(heard) ms")
        let item = s.realtime.clientEvents(ofType: "conversation.item.create").first?.json
        #expect(item?["item"]?["role"] == "system")
        #expect(item?["item"]?["content"]?.arrayFirst?["text"]?.stringValue == "The laundry is done.")
        let create = s.realtime.clientEvents(ofType: "response.create").first?.json
        #expect(create?["response"]?["tool_choice"]?.stringValue == "none", "no tools: \(String(describing: create))")
        #expect(create?["response"]?["instructions"]?.stringValue == ConversationEngine.sayInstructions)
        #expect(s.realtime.clientEvents(ofType: "input_audio_buffer.append").isEmpty, "no microphone")
        await h.waitForState(.idle)
        #expect(h.mixer.requestedGain(.media) == 1, "unducked")
        #expect(s.realtime.rejections.isEmpty, "\(s.realtime.rejections)")
        try await s.stop()
    }

    @Test func sayFailsWithThePlainReasonWhenTheAPIIsUnreachable() async throws {
        let s = try ConversationRunnerTests().setup()
        s.transport.scriptConnects(.fail(RealtimeDisconnect(kind: .transient, reason: .unreachable(host: "api.openai.com", .hostNotFound))))
        let outcome = await s.h.runner.say("hello")
        #expect(outcome == .failed("cannot reach the Realtime API at api.openai.com: host name not found; check the network"))
        #expect(s.transport.attempts == 1)
        try await s.h.stop()
    }

    @Test func aSayPendingAtShutdownIsAnswered() async throws {
        let s = try ConversationRunnerTests().setup()
        s.transport.scriptConnects(.hang)
        async let outcome = s.h.runner.say("hello")
        await s.h.waitForState(.connecting)
        try await s.h.stop()
        #expect(await outcome != .spoken)
    }

    @Test func voiceVolumeIsTheGainOfTheVoiceAndEarconChannelsOnly() async throws {
        let s = try ConversationRunnerTests().setup()
        s.h.runner.setMediaVolume(0.8)
        s.h.runner.setVoiceVolume(0.5)
        #expect(await waitUntil { s.h.mixer.requestedGain(.voice) == 0.5 })
        #expect(s.h.mixer.requestedGain(.earcon) == 0.5)
        #expect(s.h.mixer.requestedGain(.media) == 0.8, "the media volume is separate")
        try await s.h.stop()
    }
}
