import Media
import Realtime
import Testing

@testable import Conversation

/// The DJ loop and media notices in the engine: `.announce` with the manual clock.
@Suite struct AnnouncementTests {
    static let cue = "That was “A”. Next up: “B”. Introduce it in one short sentence; do not call tools."

    static func systemItem(_ text: String) -> ClientEvent { .conversationItemCreate(.message(role: .system, text: text)) }

    static func uplinkEffects(_ effects: [ConversationEffect]) -> [ConversationEffect] {
        effects.filter { if case .uplink = $0 { true } else { false } }
    }

    /// An interlude "first" from idle, its reply R1 (`samples` of item A1) playing, and "second" announced behind it.
    static func secondAnnouncedWhileTheFirstIsSpoken(samples: Int) -> EngineHarness {
        var h = EngineHarness()
        h.handle(.announce("first"))
        h.handle(.realtimeConnected, after: 100)
        h.server(.sessionCreated(SessionInfo()), after: 50)
        h.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")))
        h.server(EngineHarness.delta("R1", "A1", samples: samples), after: 100)
        h.handle(.announce("second"), after: 50)
        return h
    }

    @Test func inIdleItConnectsSpeaksAndEndsWithoutOpeningTheMic() {
        var h = EngineHarness()
        var all: [ConversationEffect] = []
        all += h.handle(.announce(Self.cue), after: 1_000)
        #expect(h.state == .connecting)
        #expect(h.last.contains(.connectRealtime) && h.last.contains(.duckMedia))
        #expect(!h.last.contains { if case .playEarcon = $0 { true } else { false } }, "no listening earcon: \(h.last)")
        all += h.handle(.realtimeConnected, after: 100)
        all += h.server(.sessionCreated(SessionInfo(id: "s1")), after: 50)
        let settings = RealtimeSessionSettings()
        #expect(
            h.lastSent == [
                settings.sessionUpdate(tools: [AskJarvisTool.definition.functionTool], turnTaking: .text),
                Self.systemItem(Self.cue), .responseCreate(nil)
            ])
        #expect(h.state == .processing)
        all += h.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")))
        all += h.server(EngineHarness.delta("R1", "A1", samples: 24_000), after: 100)
        #expect(h.state == .aiSpeaking)
        all += h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")), after: 50)
        #expect(h.state == .aiSpeaking, "still playing")
        all += h.handle(.voicePlayed(samples: 24_000), after: 1_000)
        #expect(h.state == .idle, "the interlude ends after the spoken reply")
        #expect(h.last.contains(.disconnectRealtime) && h.last.contains(.unduckMedia))
        #expect(Self.uplinkEffects(all).allSatisfy { $0 == .uplink(.stop) }, "never captured or streamed: \(Self.uplinkEffects(all))")
        #expect(!all.contains(.playEarcon(.listening)) && !all.contains(.playEarcon(.done)))
        #expect(!all.contains(.setLED(.listening)))
    }

    @Test func radioModeCueRunsJarvisAndPlayAudioThenEnds() {
        var h = EngineHarness()
        let cue = MediaCue.needsNextPick(after: MediaItem(url: "https://x.org/a.mp3", title: "A", kind: .music))
        h.handle(.announce(cue.text))
        h.handle(.realtimeConnected, after: 100)
        h.server(.sessionCreated(SessionInfo()), after: 50)
        #expect(h.lastSent.contains(Self.systemItem(cue.text)))
        // The model says a filler and calls ask_jarvis; then play_audio; then introduces the pick.
        h.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")))
        h.server(
            .functionCallArgumentsDone(
                FunctionCall(responseID: "R1", itemID: "F1", callID: "c1", name: "ask_jarvis", arguments: #"{"query":"next pick"}"#)))
        h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")), after: 100)
        #expect(h.state == .waitingForJarvis)
        #expect(h.last.contains(earcon: .thinking), "Jarvis takes a while")
        h.handle(.toolFinished(callID: "c1", output: .success(#"{"type":"music","title":"B","url":"https://x.org/b.mp3"}"#)), after: 900)
        h.server(.responseCreated(ResponseInfo(id: "R2", status: "in_progress")))
        h.server(
            .functionCallArgumentsDone(
                FunctionCall(
                    responseID: "R2", itemID: "F2", callID: "c2", name: "play_audio", arguments: #"{"url":"https://x.org/b.mp3","title":"B"}"#)))
        h.server(.responseDone(ResponseInfo(id: "R2", status: "completed")), after: 100)
        #expect(h.last.toolCalls.map(\.1) == ["play_audio"])
        #expect(!h.last.contains(earcon: .thinking), "a local media tool answers at once: no thinking earcon")
        h.handle(.toolFinished(callID: "c2", output: .success(#"{"status":"playing"}"#)), after: 50)
        h.server(.responseCreated(ResponseInfo(id: "R3", status: "in_progress")))
        h.server(EngineHarness.delta("R3", "A3", samples: 4_800), after: 100)
        h.server(.responseDone(ResponseInfo(id: "R3", status: "completed")))
        h.handle(.voicePlayed(samples: 4_800), after: 200)
        #expect(h.state == .idle)
    }

    @Test func aSecondAnnouncementDuringAnInterludeIsSpokenBeforeItEnds() {
        var h = Self.secondAnnouncedWhileTheFirstIsSpoken(samples: 4_800)
        #expect(h.lastSent.isEmpty, "not while speaking")
        h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")))
        h.handle(.voicePlayed(samples: 4_800), after: 200)
        #expect(h.lastSent == [Self.systemItem("second"), .responseCreate(nil)])
        #expect(h.state == .processing)
        h.server(.responseCreated(ResponseInfo(id: "R2", status: "in_progress")))
        h.server(EngineHarness.delta("R2", "A2", samples: 2_400), after: 100)
        h.server(.responseDone(ResponseInfo(id: "R2", status: "completed")))
        h.handle(.voicePlayed(samples: 7_200), after: 100)  // counted since the last flush
        #expect(h.state == .idle)
        #expect(!h.last.contains { if case .log(_, let line) = $0 { line.contains("not spoken") } else { false } })
    }

    @Test func aTapStopsTheInterludeAndWhatWaitsBehindIt() {
        var h = Self.secondAnnouncedWhileTheFirstIsSpoken(samples: 24_000)
        h.handle(.voicePlayed(samples: 4_800), after: 200)
        h.handle(.button(.tap(pressedAt: h.now)), after: 100)
        #expect(h.lastSent.contains(.responseCancel(responseID: nil)))
        #expect(!h.lastSent.contains(Self.systemItem("second")))
        h.server(.responseDone(ResponseInfo(id: "R1", status: "cancelled")), after: 20)
        #expect(h.state == .idle)
    }

    @Test func inListeningItGoesOutAtOnce() {
        var h = EngineHarness()
        h.startHandsFree()
        #expect(h.state == .listening)
        h.handle(.announce(Self.cue), after: 500)
        #expect(h.lastSent == [Self.systemItem(Self.cue), .responseCreate(nil)])
        #expect(h.state == .processing)
        h.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")))
        h.server(EngineHarness.delta("R1", "A1", samples: 2_400), after: 100)
        h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")))
        h.handle(.voicePlayed(samples: 2_400), after: 100)
        #expect(h.state == .listening, "the user's conversation goes on")
    }

    @Test func whileTheUserSpeaksItWaitsUntilListening() {
        var h = EngineHarness()
        h.startHandsFree()
        h.server(.speechStarted(audioStartMs: 0, itemID: "U1"), after: 100)
        h.handle(.announce(Self.cue), after: 200)
        #expect(h.lastSent.isEmpty)
        h.server(.speechStopped(audioEndMs: 900, itemID: "U1"), after: 700)
        h.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")))
        #expect(!h.lastSent.contains(Self.systemItem(Self.cue)))
        h.server(EngineHarness.delta("R1", "A1", samples: 2_400), after: 100)
        h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")))
        #expect(!h.lastSent.contains(Self.systemItem(Self.cue)), "not while the answer still plays")
        h.handle(.voicePlayed(samples: 2_400), after: 100)
        #expect(h.lastSent == [Self.systemItem(Self.cue), .responseCreate(nil)], "delivered once back in listening")
        #expect(h.state == .processing)
        h.server(.responseCreated(ResponseInfo(id: "R2", status: "in_progress")))
        h.server(.responseDone(ResponseInfo(id: "R2", status: "completed")), after: 100)
        #expect(h.state == .listening)
        #expect(!h.lastSent.contains(Self.systemItem(Self.cue)), "delivered only once")
    }

    @Test func whileAToolRunsAStaleAnnouncementIsDropped() {
        var h = EngineHarness()
        h.startHandsFree()
        h.handle(.ask("tell me a long story"), after: 100)
        h.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")))
        h.server(
            .functionCallArgumentsDone(
                FunctionCall(responseID: "R1", itemID: "F1", callID: "c1", name: "ask_jarvis", arguments: #"{"query":"story"}"#)))
        h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")), after: 100)
        #expect(h.state == .waitingForJarvis)
        h.handle(.announce("old news"), after: 100)
        #expect(h.lastSent.isEmpty)
        h.handle(.toolFinished(callID: "c1", output: .success("a story")), after: 61_000)
        h.server(.responseCreated(ResponseInfo(id: "R2", status: "in_progress")))
        h.server(.responseDone(ResponseInfo(id: "R2", status: "completed")), after: 100)
        #expect(h.state == .listening)
        #expect(!h.lastSent.contains(Self.systemItem("old news")))
        #expect(h.last.contains(.log(.info, "dropped 1 announcement(s) older than 60 s")))
    }

    @Test func aHoldDuringAnInterludeJoinsTheConversation() {
        var h = EngineHarness()
        h.handle(.announce(Self.cue))
        h.handle(.realtimeConnected, after: 100)
        h.server(.sessionCreated(SessionInfo()), after: 50)
        h.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")))
        h.server(EngineHarness.delta("R1", "A1", samples: 24_000), after: 100)
        h.handle(.button(.holdStarted(pressedAt: h.now)), after: 400)
        #expect(h.state == .userSpeaking)
        #expect(h.last.contains(.uplink(.stream)))
        h.handle(.button(.holdEnded), after: 1_000)
        h.server(.responseDone(ResponseInfo(id: "R1", status: "cancelled")), after: 10)
        h.server(.responseCreated(ResponseInfo(id: "R2", status: "in_progress")))
        h.server(.responseDone(ResponseInfo(id: "R2", status: "completed")), after: 100)
        #expect(h.state == .listening, "the user's turn keeps the conversation open")
    }

    @Test func mediaCueTexts() {
        let ended = MediaItem(url: "https://x.org/fp.mp3", title: "Floating Points", kind: .music)
        let next = MediaItem(url: "https://x.org/w.mp3", title: "Warp 2019", kind: .music, show: "Warp Records")
        #expect(
            MediaCue(event: .itemEnded(ended, next: next), radioMode: false)?.text
                == "That was “Floating Points”. Next up: “Warp 2019” (Warp Records). Introduce it in one short sentence; do not call tools.")
        #expect(MediaCue(event: .itemEnded(ended, next: nil), radioMode: false) == nil, "nothing to say when the queue ran out")
        let pick = MediaCue(event: .itemEnded(ended, next: nil), radioMode: true)
        #expect(pick?.text.contains("ask_jarvis") == true && pick?.text.contains("play_audio") == true)
        let gaveUp = MediaCue(
            event: .gaveUp(MediaItem(url: "https://ice.x/gs", kind: .radio, show: "Groove Salad"), reason: "the server refused it (HTTP 403)"),
            radioMode: false)
        #expect(
            gaveUp?.text
                == "Tell the user briefly, in one sentence, that the stream “Groove Salad” stopped and could not be restarted: the server refused it (HTTP 403). Do not call tools."
        )
        #expect(MediaCue(event: .playbackChanged(.playing), radioMode: true) == nil)
        #expect(MediaCue(event: .streamTitleChanged("x"), radioMode: true) == nil)
    }
}
