import Control
import Testing

@Suite struct ServiceStatusTests {
    func line(_ response: ControlResponse) -> String {
        String(decoding: ControlWire.encodeResponse(response), as: UTF8.self)
    }

    @Test func statusWithNullsHasTheContractShape() throws {
        let status = ServiceStatus(
            state: "idle", realtimeConnected: false, jarvisSessionID: nil,
            media: MediaStatus(state: .stopped, title: nil, url: nil, volume: 0.5, ducked: false))
        let text = line(.status(status))
        #expect(
            text
                == #"{"ok":true,"result":{"audio":null,"barge_ins":0,"cost_usd":{"since_start":0,"today":0},"echo_turns_ignored":0,"jarvis_session_id":null,"malformed_events":0,"media":{"ducked":false,"state":"stopped","title":null,"url":null,"volume":0.5},"muted":false,"realtime_connected":false,"snapcast":null,"state":"idle","timers":[],"unknown_events":0,"voice_pauses_resumed":0,"voice_volume":1}}"#
                + "\n")
        let reply = try ControlWire.decodeReply(Array(text.utf8).dropLast())
        guard case .ok(let result) = reply else {
            Issue.record("not ok: \(reply)")
            return
        }
        #expect(
            result
                == .object([
                    "state": .string("idle"), "realtime_connected": .bool(false), "jarvis_session_id": .null,
                    "media": .object(["state": .string("stopped"), "title": .null, "url": .null, "volume": .number(0.5), "ducked": .bool(false)]),
                    "voice_volume": .number(1), "muted": .bool(false), "timers": .array([]), "barge_ins": .number(0),
                    "echo_turns_ignored": .number(0), "audio": .null, "snapcast": .null,
                    "voice_pauses_resumed": .number(0), "cost_usd": .object(["since_start": .number(0), "today": .number(0)]),
                    "malformed_events": .number(0), "unknown_events": .number(0)
                ]))
        #expect(
            result.jsonText
                == #"{"audio":null,"barge_ins":0,"cost_usd":{"since_start":0,"today":0},"echo_turns_ignored":0,"jarvis_session_id":null,"malformed_events":0,"media":{"ducked":false,"state":"stopped","title":null,"url":null,"volume":0.5},"muted":false,"realtime_connected":false,"snapcast":null,"state":"idle","timers":[],"unknown_events":0,"voice_pauses_resumed":0,"voice_volume":1}"#
        )
    }

    /// `cost_usd` in dollars, to a millionth (what a `turn:` line's estimate is precise to).
    @Test func costIsRoundedToAMillionth() throws {
        let status = ServiceStatus(
            state: "idle", realtimeConnected: false, jarvisSessionID: nil, media: MediaStatus(volume: 0.5),
            cost: CostStatus(sinceStart: 0.1 + 0.2, today: 0.0065604))
        let reply = try ControlWire.decodeReply(Array(line(.status(status)).utf8).dropLast())
        guard case .ok(let result) = reply else {
            Issue.record("not ok")
            return
        }
        #expect(result["cost_usd"] == .object(["since_start": .number(0.3), "today": .number(0.00656)]))
    }

    @Test func statusWithValues() throws {
        let status = ServiceStatus(
            state: "ai_speaking", realtimeConnected: true, jarvisSessionID: "sess_01",
            media: MediaStatus(
                state: .playing, title: "Groove Salad", url: "https://ice1.somafm.com/groovesalad-128-mp3",
                volume: 0.3, ducked: true))
        let reply = try ControlWire.decodeReply(Array(line(.status(status)).utf8).dropLast())
        guard case .ok(let result) = reply else {
            Issue.record("not ok")
            return
        }
        #expect(result["state"] == .string("ai_speaking"))
        #expect(result["realtime_connected"] == .bool(true))
        #expect(result["jarvis_session_id"] == .string("sess_01"))
        #expect(result["media"]?["url"] == .string("https://ice1.somafm.com/groovesalad-128-mp3"))
        #expect(result["media"]?["ducked"] == .bool(true))
        #expect(result["media"]?["volume"] == .number(0.3))
    }

    @Test func statusWithTheAudioFigures() throws {
        let audio = AudioStatus(
            captureRunning: true, playbackRunning: false, captureXruns: 2, playbackXruns: 0,
            echoReductionDB: 23.5, referenceLagMilliseconds: -1.5, nearEndSpeech: true, playbackTakeBacks: 5,
            playbackTakeBackUnderruns: 1)
        let status = ServiceStatus(
            state: "ai_speaking", realtimeConnected: true, jarvisSessionID: nil,
            media: MediaStatus(volume: 1), bargeIns: 3, echoTurnsIgnored: 7, voicePausesResumed: 2, malformedEvents: 1,
            unknownEvents: 4, audio: audio)
        let reply = try ControlWire.decodeReply(Array(line(.status(status)).utf8).dropLast())
        guard case .ok(let result) = reply else {
            Issue.record("not ok")
            return
        }
        #expect(result["barge_ins"] == .number(3))
        #expect(result["echo_turns_ignored"] == .number(7))
        #expect(result["voice_pauses_resumed"] == .number(2))
        #expect(result["malformed_events"] == .number(1) && result["unknown_events"] == .number(4))
        #expect(
            result["audio"]
                == .object([
                    "capture_running": .bool(true), "playback_running": .bool(false), "capture_xruns": .number(2),
                    "playback_xruns": .number(0), "echo_reduction_db": .number(23.5), "reference_lag_ms": .number(-1.5),
                    "near_end_speech": .bool(true), "playback_take_backs": .number(5),
                    "playback_take_back_underruns": .number(1)
                ]))
    }

    @Test func doneAndFailedLines() throws {
        #expect(line(.done("listening")) == #"{"ok":true,"result":{"message":"listening"}}"# + "\n")
        #expect(line(.failed("no \"media\"")) == #"{"error":"no \"media\"","ok":false}"# + "\n")
        #expect(try ControlWire.decodeReply(Array(line(.done("listening")).utf8).dropLast()).message == "listening")
        #expect(try ControlWire.decodeReply(Array(#"{"ok":false,"error":"boom"}"#.utf8)) == .failed("boom"))
        #expect(throws: ControlWireError.malformedResponse) { try ControlWire.decodeReply(Array("hello".utf8)) }
    }

    @Test func theTextAPersonReadsNamesTimersMediaAndCost() throws {
        var status = ServiceStatus(
            state: "waiting_for_jarvis", realtimeConnected: true, jarvisSessionID: "sess-42", voiceVolume: 0.8,
            muted: true,
            timers: [
                TimerStatus(id: "1", label: "tea", state: .running, dueInSeconds: 245),
                TimerStatus(id: "2", label: nil, state: .ringing, dueInSeconds: 0),
                TimerStatus(id: "3", label: "roast", state: .running, dueInSeconds: 7_265)
            ],
            media: MediaStatus(state: .playing, title: "Groove Salad", url: "http://ice.somafm.com/groovesalad", volume: 0.3, ducked: true),
            cost: CostStatus(sinceStart: 0.0523, today: 0.0041))
        status.audio = AudioStatus(
            captureRunning: true, playbackRunning: true, captureXruns: 0, playbackXruns: 2, echoReductionDB: 18.46,
            referenceLagMilliseconds: 12, nearEndSpeech: false)
        let reply = try ControlWire.decodeReply(Array(line(.status(status)).utf8).dropLast())
        guard case .ok(let json) = reply else {
            Issue.record("not ok")
            return
        }
        #expect(
            ServiceStatusText.render(json) == """
                state: waiting for jarvis (Realtime connected)
                microphone: off (muted); voice volume 0.8
                media: playing "Groove Salad"; volume 0.3 (ducked)
                timers: tea (#1) in 4:05; #2 ringing; roast (#3) in 2:01:05
                cost: $0.0041 today, $0.0523 since start
                Jarvis session: sess-42
                audio: capture running, playback running; echo reduction 18.46 dB; xruns 0 capture, 2 playback
                """)
    }

    @Test func roomsShowTheGroupItsStreamAndTheStreamsOnceKnown() throws {
        var status = ServiceStatus(
            state: "idle", realtimeConnected: false, jarvisSessionID: nil,
            media: MediaStatus(state: .stopped, title: nil, url: nil, volume: 0.4, ducked: false))
        status.snapcast = SnapcastStatus(
            server: "home.lan:1704", name: "den", id: "den", connected: true, volume: 0.4, group: "Living", stream: "jazz",
            streams: ["radio", "jazz"])
        let reply = try ControlWire.decodeReply(Array(line(.status(status)).utf8).dropLast())
        guard case .ok(let json) = reply else {
            Issue.record("not ok")
            return
        }
        #expect(json["snapcast"]?["streams"] == ["radio", "jazz"])
        let text = ServiceStatusText.render(json)
        #expect(text.contains("rooms: den in the group of home.lan:1704, connected, nothing playing; volume 0.4\n"))
        #expect(text.hasSuffix("rooms: group Living plays jazz; streams: radio, jazz"))
        status.snapcast = SnapcastStatus(server: "home.lan:1704", name: "den", id: "den")
        let unknown = try ControlWire.decodeReply(Array(line(.status(status)).utf8).dropLast())
        guard case .ok(let bare) = unknown else { return }
        #expect(bare["snapcast"]?["group"] == .null)
        #expect(bare["snapcast"]?["stream"] == .null)
        #expect(!ServiceStatusText.render(bare).contains("plays"))
    }
}
