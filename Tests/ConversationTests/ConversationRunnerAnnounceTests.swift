import AudioCore
import Basics
import Media
import Realtime
import TestProcess
import TestSupport
import Testing

@testable import Conversation

/// Announcements (the DJ loop) and the speech-aware long hold through the whole runner over loopback.
@Suite(.timeLimit(.minutes(3))) struct ConversationRunnerAnnounceTests {
    /// No earcons: the only audio out is the answer.
    func setup(calls: [ScriptedFunctionCall] = []) async throws -> MediaLoopback {
        try await MediaLoopback.start(calls: calls, answerAudio: tone(milliseconds: 500, frequency: 660), earcons: { _ in nil })
    }

    @Test func aDJCueInIdlePlaysTheNextPickAndEndsWithoutTheMic() async throws {
        let s = try await setup(calls: [
            ScriptedFunctionCall(
                name: "play_audio", arguments: #"{"url":"https://x.org/next.mp3","title":"Next","type":"music"}"#, callID: "call_play")
        ])
        let h = s.h
        h.startPlayback(speed: 4)
        let cue = MediaCue.needsNextPick(after: MediaItem(url: "https://x.org/a.mp3", title: "A", kind: .music))
        h.runner.announce(cue)
        await h.waitForState(.connecting)
        await h.speak(try SpeechFixture.speech("this must not be sent"))  // the kitchen talks; the mic stays closed
        await h.waitForState(.aiSpeaking)
        await h.waitForState(.idle)

        #expect(await s.player.calls == ["play https://x.org/next.mp3 Next music"])
        let items = s.realtime.clientEvents(ofType: "conversation.item.create").map(\.json)
        #expect(items.first?["item"]?["role"] == "system")
        #expect(items.first?["item"]?["content"]?.arrayFirst?["text"]?.stringValue == cue.text)
        #expect(s.realtime.clientEvents(ofType: "input_audio_buffer.append").isEmpty, "no mic audio left the box")
        let session = s.realtime.clientEvents(ofType: "session.update").first?.json
        #expect(session?["session"]?["audio"]?["input"]?["turn_detection"] == .null, "no VAD either")
        #expect(!h.ledPatterns.contains(.listening))
        #expect(h.mixer.requestedGain(.media) == 1, "unducked after the interlude")
        #expect(await waitUntil { !(await h.runner.status()).realtimeConnected }, "the session is closed (billing)")
        #expect(s.realtime.rejections.isEmpty, "\(s.realtime.rejections)")
        try await s.stop()
    }

    @Test func aLongPushToTalkRequestIsCommittedNotReset() async throws {
        let s = try await setup(calls: [ScriptedFunctionCall(name: "get_now_playing", arguments: "{}", callID: "call_now")])
        let h = s.h
        h.startPlayback(speed: 4)
        h.runner.press()
        await h.waitForState(.userSpeaking)
        await h.speak(try SpeechFixture.speech("play me something long and interesting please"))
        #expect(await waitUntil { h.logs.contains("push-to-talk: speech heard") })
        try await Task.sleep(for: .milliseconds(150))  // a hold, not a tap: the speech came faster than real time
        h.runner.longHold()  // the recogniser's 3 s mark, mid-request
        h.runner.release()
        #expect(await s.realtime.waitForClientEvent("input_audio_buffer.commit"))
        #expect(h.logs.contains("long hold ignored"))
        #expect(!h.logs.contains("Jarvis session reset"))
        await h.waitForState(.listening)
        try await s.stop()
    }

    @Test func aSilentLongHoldResetsAndDiscardsTheHold() async throws {
        let s = try await setup()
        let h = s.h
        h.startPlayback(speed: 4)
        h.runner.press()
        await h.waitForState(.userSpeaking)
        await h.speak([Int16](repeating: 3, count: 24 * 600))  // a quiet room
        await h.waitForTicks()  // the loop has taken it from the microphone
        h.runner.longHold()
        h.runner.release()
        #expect(await waitUntil { h.logs.contains("long hold: Jarvis session reset") })
        await h.waitForState(.idle)  // the hold was the whole conversation
        #expect(s.realtime.clientEvents(ofType: "input_audio_buffer.commit").isEmpty)
        #expect(!h.logs.contains("push-to-talk: speech heard"))
        try await s.stop()
    }
}

extension JSONValue {
    var arrayFirst: JSONValue? {
        if case .array(let values) = self { return values.first }
        return nil
    }
}
