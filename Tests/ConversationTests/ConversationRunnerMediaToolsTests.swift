import AudioCore
import Basics
import Media
import Realtime
import TestProcess
import TestSupport
import Testing

@testable import Conversation

/// The media tools through the whole runner over loopback: the Realtime stand-in's model calls several
/// tools in one turn, the fake player sees them, and the stand-in receives their outputs.
@Suite(.timeLimit(.minutes(3))) struct ConversationRunnerMediaToolsTests {
    static let answerHz = 660.0

    func setup(calls: [ScriptedFunctionCall]) async throws -> MediaLoopback {
        try await MediaLoopback.start(calls: calls, answerAudio: tone(milliseconds: 600, frequency: Self.answerHz))
    }

    func outputs(_ realtime: RealtimeStandIn) -> [String: String] {
        Dictionary(realtime.functionCallOutputs.map { ($0.callID, $0.output) }, uniquingKeysWith: { _, last in last })
    }

    @Test func playAudioThenGetNowPlayingInOneTurn() async throws {
        let s = try await setup(calls: [
            ScriptedFunctionCall(
                name: "play_audio", arguments: #"{"url":"https://example.org/ep147.mp3","title":"Darknet Diaries ep 147","type":"podcast"}"#,
                callID: "call_play"),
            ScriptedFunctionCall(name: "get_now_playing", arguments: "{}", callID: "call_now")
        ])
        let h = s.h
        h.startPlayback(speed: 4)
        h.runner.ask("play me something interesting")
        #expect(await s.realtime.waitUntil { outputs(s.realtime).count == 2 })
        await h.waitForState(.aiSpeaking)
        await h.waitForState(.listening)

        #expect(await s.player.calls == ["play https://example.org/ep147.mp3 Darknet Diaries ep 147 podcast", "now", "history 5"])
        let sent = outputs(s.realtime)
        let played = try #require(sent["call_play"].flatMap(JSONValue.parse))
        #expect(played["status"] == "playing" && played["title"] == "Darknet Diaries ep 147")
        let now = try #require(sent["call_now"].flatMap(JSONValue.parse))
        #expect(now["state"] == "playing" && now["title"] == "Darknet Diaries ep 147" && now["type"] == "podcast")
        #expect(s.realtime.functionCallOutputs.map(\.callID) == ["call_play", "call_now"], "in the script's order")
        let creates = s.realtime.clientEvents.map(\.type)
        #expect(creates.filter { $0 == "response.create" }.count == 3, "ask, after play_audio, after get_now_playing: \(creates)")
        #expect(s.realtime.rejections.isEmpty, "\(s.realtime.rejections)")
        try await s.stop()
    }

    @Test func duckAudioLowersMediaForThisConversationOnly() async throws {
        let s = try await setup(calls: [ScriptedFunctionCall(name: "duck_audio", arguments: #"{"level":0.5}"#, callID: "call_duck")])
        let h = s.h
        h.startPlayback(speed: 4)
        h.runner.ask("keep the music a bit louder while we talk")
        await h.waitForState(.processing)
        #expect(h.mixer.requestedGain(.media) < 0.2, "ducked to the configured depth first")
        #expect(await s.realtime.waitUntil { outputs(s.realtime)["call_duck"] != nil })
        await h.waitForState(.listening)
        #expect(abs(h.mixer.requestedGain(.media) - 0.5) < 0.001)
        #expect(outputs(s.realtime)["call_duck"].flatMap(JSONValue.parse) == ["duck_level": 0.5])
        h.runner.tap()
        await h.waitForState(.idle)
        #expect(h.mixer.requestedGain(.media) == 1, "released at idle")
        #expect((await h.runner.status()).media.ducked == false)
        try await s.stop()
    }
}
