import ALSATestbed
import Basics
import Glibc
import Realtime
import TestProcess
import TestSupport
import Testing

/// Media through the real `jarvis-voice run`: a live MP3 radio stream from the media stand-in plays into
/// the paced speaker, a spoken conversation ducks it (measured on the output's envelope), the model's
/// media tools drive the player, the control socket's media verbs work, and a dead stream is announced.
@Suite(.serialized, .timeLimit(.minutes(3))) struct MediaRunTests {
    static let radioHz = 400
    /// `[media] loudness_target`'s default, which these services run with: ducking and the volumes act on
    /// top of the leveled media.
    static let loudnessTarget = -18.0
    /// A new stream reaches the loudness target within its first 3 s of audio (the leveler's fast start;
    /// the test radio is 12 LU above it), so levels compared before and after are measured from then on.
    static let levelerSettlesMilliseconds = 3_000
    static let answerHz = 1_500.0
    let dir = TemporaryDirectory()

    /// The service with the radio at full volume, ducking by 20 dB, and a mic that follows appends;
    /// returns once the control socket answers.
    func start(
        in directory: TemporaryDirectory? = nil, realtime: RealtimeStandIn, jarvis: TermLLMStandIn, media extra: String = "",
        link: String, realtimeSection: String = "idle_timeout_s = 2", timeout: Duration = .seconds(10)
    ) async throws -> ServiceUnderTest {
        let service = try ServiceUnderTest.start(
            in: directory ?? dir, name: link, realtime: realtime, jarvis: jarvis, realtimeSection: realtimeSection,
            mediaSection: "volume = 1.0\nduck_db = -20\nstation_catalog_url = \"\"\n\(extra)")
        guard try await service.ctlWhenReady("status", timeout: timeout) else {
            _ = service.process.signal(SIGKILL)
            Issue.record("the service did not answer; log:\n\(service.logText)")
            throw CancellationError()
        }
        return service
    }

    /// `status` as JSON.
    /// Polls `status` until `condition` holds; returns the frames played by then (the speaker file's
    /// length), or nil on timeout.
    func waitForStatus(
        _ service: ServiceUnderTest, timeout: Duration = hangTimeout,
        _ condition: (JSONValue) -> Bool
    ) async throws -> Int? {
        try await service.waitForStatus(timeout: timeout, condition).map { _ in service.playedFrames }
    }

    /// What the stand-in's VAD was given: seconds of appended audio and the loudest 20 ms window (RMS; it
    /// starts a turn at 650).
    static func uplinkHeard(by realtime: RealtimeStandIn) -> String {
        let samples = realtime.clientEvents(ofType: "input_audio_buffer.append")
            .flatMap { $0.json["audio"]?.stringValue.flatMap(Base64.decodeSamples) ?? [] }
        var loudest = 0.0
        for start in stride(from: 0, to: samples.count - 479, by: 480) {
            var sum = 0.0
            for sample in samples[start..<(start + 480)] { sum += Double(sample) * Double(sample) }
            loudest = max(loudest, (sum / 480).squareRoot())
        }
        return "the stand-in was sent \(Double(samples.count) / 24_000) s of audio, loudest 20 ms RMS \(Int(loudest))"
    }

    func liveRadio(_ media: MediaStandIn, titles: [String]) throws -> String {
        var stream = MediaStandIn.LiveStream(audio: try MediaFixtures.sineMP3(seconds: 4, frequency: Self.radioHz, sampleRate: 48_000))
        stream.titles = titles
        stream.metaInterval = 4_096
        // Icecast's burst on connect, made large: the stand-in shares this process's 2 cores with the
        // whole suite, and a stall of its pacing would be heard as gaps in the measured radio.
        stream.burstBytes = 96_000
        media.route("/radio.mp3", .live(stream))
        return media.url("/radio.mp3")
    }

    // MARK: tests

    @Test func radioIsDuckedUnderAConversationAndRestoredAfterIt() async throws {
        var script = RealtimeStandInScript()
        script.answerAudio = (0..<(24 * 1_200)).map { Int16(8_000 * sin(Double($0) * 2 * .pi * Self.answerHz / 24_000)) }
        let realtime = try await RealtimeStandIn.start(script: script)
        let jarvis = try await TermLLMStandIn.start()
        let media = try await MediaStandIn.start()
        let radio = try liveRadio(media, titles: ["Stand-in Artist - First Song"])
        let question = try await SpokenTurnTests.micInput(leadMilliseconds: 0, in: dir)
        // Quiet for 12 s ends a conversation: the test speaks once `ctl status` says listening, and under
        // the whole suite on 2 cores that has taken more than 4 s (the question then met a closed turn).
        let service = try await start(realtime: realtime, jarvis: jarvis, link: "duck", realtimeSection: "idle_timeout_s = 12")
        defer { _ = service.process.signal(SIGKILL) }

        let play = try await service.ctl("play", radio)
        #expect(play.status == 0, "\(play)")
        // ICY titles reach `status`.
        let onAir = try await waitForStatus(service) {
            $0["media"]?["state"] == "playing" && $0["media"]?["title"] == "Stand-in Artist - First Song"
        }
        try #require(onAir != nil, "log:\n\(service.logText)")
        try await service.playOn(milliseconds: Self.levelerSettlesMilliseconds)

        let beforeTap = service.playedFrames
        let tapped = try await service.ctl("tap")
        #expect(tapped.status == 0, "\(tapped)")
        let listening = try #require(await waitForStatus(service) { $0["state"] == "listening" }, "log:\n\(service.logText)")
        try service.speak(question)
        #expect(
            await realtime.waitForClientEvent("conversation.item.create"),
            "\(Self.uplinkHeard(by: realtime)); log:\n\(service.logText)")
        let idle = try #require(
            await waitForStatus(service) {
                $0["state"] == "idle" && $0["media"]?["ducked"] == .bool(false)
            }, "log:\n\(service.logText)")
        try await service.playOn(milliseconds: 1_000)
        await service.stop()

        let output = try TestFiles.readSamples(service.played)
        let radioLevels = ToneMeter.levels(of: Double(Self.radioHz), inStereo48k: output)
        let block = ToneMeter.blockFrames
        let tapBlock = beforeTap / block, listeningBlock = listening / block, idleBlock = idle / block
        // The radio's level in the half second before the tap.
        let before = ToneMeter.median(radioLevels[(tapBlock - 50)..<tapBlock])
        let trace = stride(from: 0, to: radioLevels.count, by: 10).map { "\($0 / 10)s/10:\(Int(radioLevels[$0]))" }
        #expect(
            before > -20,
            "the radio is audible before the conversation: \(before) dB; tap at \(tapBlock / 10), levels \(trace); log:\n\(service.logText)")
        // Ducked by the configured 20 dB within ~100 ms of listening starting (status is polled, and
        // the speaker file runs ahead of the ear by the device buffer: 100 ms of slack). Ducking starts
        // with the conversation, so on a slow connect it is already down when listening starts.
        let duckedBy = radioLevels[listeningBlock...].firstIndex { $0 < before - 17 }.map { $0 - listeningBlock }
        #expect(duckedBy != nil && duckedBy! * 10 <= 200, "ducked after \(duckedBy.map { $0 * 10 } ?? -1) ms")
        let ducked = ToneMeter.median(radioLevels[(listeningBlock + 30)..<(listeningBlock + 80)])
        #expect(abs(ducked - (before - 20)) < 2, "ducked level \(ducked) dB, before \(before) dB")
        // The answer is heard over the ducked radio.
        let answerBlocks = ToneMeter.levels(of: Self.answerHz, inStereo48k: output)[listeningBlock..<idleBlock].filter { $0 > ducked + 10 }
        #expect(answerBlocks.count * 10 >= 800, "heard \(answerBlocks.count * 10) ms of the answer over the radio")
        // Back at the volume within ~500 ms after the conversation ended (300 ms ramp).
        let restoredBy = radioLevels[idleBlock...].firstIndex { $0 > before - 1 }.map { $0 - idleBlock }
        #expect(restoredBy != nil && restoredBy! * 10 <= 500, "restored after \(restoredBy.map { $0 * 10 } ?? -1) ms")
        let after = ToneMeter.median(radioLevels[(idleBlock + 60)..<min(radioLevels.count, idleBlock + 90)])
        #expect(abs(after - before) < 1, "level after \(after) dB, before \(before) dB")
        print(
            "ducking through run: radio \(before) dB, ducked \(ducked) dB after \((duckedBy ?? -1) * 10) ms, "
                + "answer \(answerBlocks.count * 10) ms over it, restored after \((restoredBy ?? -1) * 10) ms to \(after) dB")

        await realtime.shutdown()
        await jarvis.stop()
        await media.stop()
    }

    @Test func theModelsPlayAudioStartsPlaybackAndGetNowPlayingReturnsTheTitle() async throws {
        let media = try await MediaStandIn.start()
        let radio = try liveRadio(media, titles: ["Stand-in Artist - Second Song"])
        var script = RealtimeStandInScript()
        script.functionCalls = [
            ScriptedFunctionCall(
                name: "play_audio", arguments: #"{"url":"\#(radio)","title":"Stand-in Radio Hour","type":"radio"}"#,
                callID: "call_play"),
            ScriptedFunctionCall(name: "get_now_playing", arguments: "{}", callID: "call_now")
        ]
        let realtime = try await RealtimeStandIn.start(script: script)
        let jarvis = try await TermLLMStandIn.start()
        let service = try await start(realtime: realtime, jarvis: jarvis, link: "tools")
        defer { _ = service.process.signal(SIGKILL) }

        #expect(try await service.ctl("ask", "play me something").status == 0)
        #expect(await realtime.waitUntil { realtime.functionCallOutputs.count == 2 }, "log:\n\(service.logText)")
        let outputs = Dictionary(realtime.functionCallOutputs.map { ($0.callID, $0.output) }, uniquingKeysWith: { a, _ in a })
        #expect(outputs["call_play"]?.contains("Stand-in Radio Hour") == true, "\(outputs)")
        let now = try #require(outputs["call_now"].flatMap(JSONValue.parse), "\(outputs)")
        #expect(now["state"] == "playing" || now["state"] == "stopped", "\(now)")
        #expect(now["url"] == .string(radio), "\(now)")
        #expect(now["title"] == "Stand-in Radio Hour", "\(now)")
        // The stream plays, and its ICY title reaches status.
        #expect(
            try await waitForStatus(service) {
                $0["media"]?["state"] == "playing" && $0["media"]?["title"] == "Stand-in Artist - Second Song"
            } != nil, "log:\n\(service.logText)")
        try await service.playOn(milliseconds: 1_000)
        await service.stop()
        let radioLevels = ToneMeter.levels(of: Double(Self.radioHz), inStereo48k: try TestFiles.readSamples(service.played))
        #expect(radioLevels.filter { $0 > -40 }.count >= 20, "the radio was heard on the speaker")
        await realtime.shutdown()
        await jarvis.stop()
        await media.stop()
    }

    @Test func controlVerbsDriveThePlayerAndTheVolumeSurvivesARestart() async throws {
        let realtime = try await RealtimeStandIn.start()
        let jarvis = try await TermLLMStandIn.start()
        let media = try await MediaStandIn.start()
        let radio = try liveRadio(media, titles: ["Song A"])
        var service = try await start(realtime: realtime, jarvis: jarvis, link: "verbs")
        defer { _ = service.process.signal(SIGKILL) }

        #expect(try await service.ctl("play", radio).status == 0)
        #expect(try await waitForStatus(service) { $0["media"]?["state"] == "playing" } != nil, "log:\n\(service.logText)")
        #expect(try await waitForStatus(service) { $0["media"]?["url"] == .string(radio) } != nil)
        #expect(try await service.ctl("pause").status == 0)
        #expect(try await waitForStatus(service) { $0["media"]?["state"] == "paused" } != nil)
        #expect(try await service.ctl("resume").status == 0)
        #expect(try await waitForStatus(service) { $0["media"]?["state"] == "playing" } != nil)
        let volume = try await service.ctl("volume", "0.3")
        #expect(volume.status == 0, "\(volume)")
        let level = try await service.status()?["media"]?["volume"]?.numberValue
        #expect(level.map { abs($0 - 0.3) <= 0.05 } == true, "volume \(String(describing: level))")
        #expect(try await service.ctl("stop").status == 0)
        #expect(try await waitForStatus(service) { $0["media"]?["state"] == "stopped" } != nil)
        let refused = try await service.ctl("play", "file:///etc/passwd")
        #expect(refused.status != 0)
        // A file with no audio it can decode: `ctl play` waits for the first audio, so it answers exit 1
        // with the reason, never "playing".
        media.route("/aac", .file([0xFF, 0xF1, 0x50, 0x80] + [UInt8](repeating: 0, count: 4_000), contentType: "audio/aac"))
        let aac = try await service.ctl("play", media.url("/aac"))
        #expect(aac.status == 1, "\(aac)")
        #expect(aac.stderr.contains("ended without any audio that could be decoded as AAC") && !aac.stdout.contains("playing"), "\(aac)")
        #expect(try await service.status()?["media"]?["state"] == "stopped")
        await service.stop()

        service = try await start(realtime: realtime, jarvis: jarvis, link: "verbs2")
        let restarted = try await service.status()?["media"]?["volume"]?.numberValue
        #expect(restarted == level, "volume after a restart \(String(describing: restarted)), before \(String(describing: level))")
        await service.stop()
        await realtime.shutdown()
        await jarvis.stop()
        await media.stop()
    }

    @Test func aStreamThatKeepsFailingIsAnnounced() async throws {
        let realtime = try await RealtimeStandIn.start()
        let jarvis = try await TermLLMStandIn.start()
        let media = try await MediaStandIn.start()
        let audio = try MediaFixtures.sineMP3(seconds: 4, frequency: Self.radioHz, sampleRate: 48_000)
        // Each connection delivers a little audio and then drops: after the first, every reconnect fails.
        var stream = MediaStandIn.LiveStream(audio: audio)
        stream.burstBytes = 24_000
        media.route("/flaky.mp3", MediaStandIn.Route(.live(stream), stopAfterBytes: 24_000))
        let service = try await start(realtime: realtime, jarvis: jarvis, media: "reconnect_attempts = 2", link: "flaky")
        defer { _ = service.process.signal(SIGKILL) }

        #expect(try await service.ctl("play", media.url("/flaky.mp3")).status == 0)
        #expect(try await waitForStatus(service) { $0["media"]?["state"] == "playing" } != nil, "log:\n\(service.logText)")
        media.route("/flaky.mp3", .status(503))
        // Gave up: stopped, and the assistant is asked to say so.
        #expect(
            try await waitForStatus(service, timeout: .seconds(20)) { $0["media"]?["state"] == "stopped" } != nil,
            "log:\n\(service.logText)")
        #expect(await realtime.waitForClientEvent("response.create"), "log:\n\(service.logText)")
        let told = realtime.clientEvents(ofType: "conversation.item.create").map(\.text)
        #expect(told.contains { $0.contains("flaky.mp3") || $0.contains("stopped") }, "\(told)")
        #expect(service.logText.contains("gave up"), "log:\n\(service.logText)")
        await service.stop()
        await realtime.shutdown()
        await jarvis.stop()
        await media.stop()
    }
}

/// Level of one frequency in 10 ms blocks of a 48 kHz stereo recording (left channel), in dBFS of a sine.
/// Frequencies with a whole number of cycles per block (400 Hz, 1.5 kHz) do not leak into each other.
enum ToneMeter {
    static let blockFrames = 480

    static func levels(of frequency: Double, inStereo48k samples: [Int16]) -> [Double] {
        let frames = samples.count / 2
        let coefficient = 2 * cos(2 * .pi * frequency / 48_000)
        var levels: [Double] = []
        levels.reserveCapacity(frames / blockFrames)
        var start = 0
        while start + blockFrames <= frames {
            var s1 = 0.0, s2 = 0.0
            for frame in start..<(start + blockFrames) {
                let s = Double(samples[2 * frame]) + coefficient * s1 - s2
                s2 = s1
                s1 = s
            }
            let power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
            let amplitude = 2 * power.squareRoot() / Double(blockFrames)
            levels.append(20 * log10(max(amplitude, 1e-3) / 32_768))
            start += blockFrames
        }
        return levels
    }

    static func median(_ values: ArraySlice<Double>) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? -.infinity : sorted[sorted.count / 2]
    }
}
