import ALSATestbed
import Glibc
import Realtime
import Testing
import TestProcess
import TestSupport

/// Media through the real `jarvis-voice run`: a live MP3 radio stream from the media stand-in plays into
/// the paced speaker, a spoken conversation ducks it (measured on the output's envelope), the model's
/// media tools drive the player, the control socket's media verbs work, and a dead stream is announced.
@Suite(.serialized, .timeLimit(.minutes(2))) struct MediaRunTests {
    static let radioHz = 400
    static let answerHz = 1_500.0
    static let question = "what is on my calendar today"
    let dir = TemporaryDirectory()

    struct Service {
        let process: BackgroundProcess
        let config: String
        let log: String
        let played: String
        let mic: String
    }

    var binary: String {
        get throws { try #require(ChildProcess.builtExecutable(), "jarvis-voice is not built next to the tests") }
    }

    func write(_ name: String, _ text: String, mode: mode_t = 0o600) throws -> String {
        let path = dir.file(name)
        try TestFiles.write(Array(text.utf8), to: path)
        chmod(path, mode)
        return path
    }

    /// Starts `jarvis-voice run` on paced devices (a mic that follows `mic.raw`, a speaker writing
    /// `played.raw`) and waits until the control socket answers.
    func start(realtime: RealtimeStandIn, jarvis: TermLLMStandIn, media extra: String = "", link: String) async throws -> Service {
        let mic = dir.file("mic-\(link).raw")
        try TestFiles.write([], to: mic)
        let played = dir.file("played-\(link).raw")
        let alsa = dir.file("asound-\(link).conf")
        try TestPCMConfig.write([
            .paced(name: "media_mic", PacedPCMOptions(infile: mic, followInfile: true)),
            .paced(name: "media_speaker", PacedPCMOptions(outfile: played)),
        ], to: alsa)
        let key = try write("openai.key", realtime.script.apiKey + "\n")
        let token = try write("jarvis.token", "s3cret\n")
        let config = try write("config.toml", """
            [audio]
            capture_device = "media_mic"
            playback_device = "media_speaker"
            realtime_priority = 0
            [realtime]
            url = "\(realtime.url)"
            api_key_file = "\(key)"
            idle_timeout_s = 2
            [jarvis]
            url = "\(jarvis.baseURL)"
            token_file = "\(token)"
            [button]
            enabled = false
            [control]
            socket = "\(dir.file("control.sock"))"
            [media]
            volume = 1.0
            duck_db = -20
            state_dir = "\(dir.file("state"))"
            station_catalog_url = ""
            \(extra)
            [log]
            level = "debug"

            """)
        let log = dir.file("service-\(link).log")
        let process = try BackgroundProcess(
            [try binary, "run", "--config", config],
            environment: ["ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:\(alsa)", "OPENAI_API_KEY": "",
                          "CREDENTIALS_DIRECTORY": "", "NOTIFY_SOCKET": "", "WATCHDOG_USEC": ""],
            stderr: .file(log))
        let service = Service(process: process, config: config, log: log, played: played, mic: mic)
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if try await ctl(service, "status").status == 0 { return service }
            try await Task.sleep(for: .milliseconds(50))
        }
        _ = process.signal(SIGKILL)
        Issue.record("the service did not answer; log:\n\(logText(service))")
        throw CancellationError()
    }

    func ctl(_ service: Service, _ words: String...) async throws -> ChildProcess.Result {
        try await ChildProcess.run([try binary, "ctl", "--config", service.config, "--timeout", "5"] + words, timeout: .seconds(10))
    }

    func logText(_ service: Service) -> String {
        String(decoding: (try? TestFiles.read(service.log)) ?? [], as: UTF8.self)
    }

    /// `status` as JSON.
    func status(_ service: Service) async throws -> JSONValue? {
        let result = try await ctl(service, "status")
        guard result.status == 0 else { return nil }
        return JSONValue.parse(result.stdout)
    }

    /// Polls `status` until `condition` holds; returns the frames played by then (the speaker file's
    /// length), or nil on timeout.
    func waitForStatus(_ service: Service, timeout: Duration = .seconds(10),
                       _ condition: (JSONValue) -> Bool) async throws -> Int? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let json = try await status(service), condition(json) {
                return playedFrames(service)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    func playedFrames(_ service: Service) -> Int {
        var info = stat()
        return stat(service.played, &info) == 0 ? Int(info.st_size) / 4 : 0
    }

    func stopped(_ service: Service) async {
        #expect(service.process.signal(SIGTERM))
        #expect(await service.process.wait(timeout: .seconds(5)) == 0, "log:\n\(logText(service))")
    }

    /// The question, spoken by espeak-ng, as 16 kHz mono PCM16 followed by 1.5 s of silence.
    func spokenQuestion() async throws -> [Int16] {
        let wav = dir.file("question.wav")
        let raw = dir.file("question.raw")
        let speak = try await ChildProcess.run(["espeak-ng", "-v", "en-us", "-s", "165", "-w", wav, Self.question])
        try #require(speak.status == 0, "\(speak)")
        let convert = try await ChildProcess.run(
            ["sox", "-D", wav, "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", "-t", "raw", raw])
        try #require(convert.status == 0, "\(convert)")
        return try TestFiles.readSamples(raw) + [Int16](repeating: 0, count: 24_000)
    }

    func speak(_ samples: [Int16], into service: Service) throws {
        let bytes = samples.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
        let fd = open(service.mic, O_WRONLY | O_APPEND)
        try #require(fd >= 0)
        defer { close(fd) }
        try #require(bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count)
    }

    func liveRadio(_ media: MediaStandIn, titles: [String]) throws -> String {
        var stream = MediaStandIn.LiveStream(audio: try MediaFixtures.sineMP3(seconds: 4, frequency: Self.radioHz, sampleRate: 48_000))
        stream.titles = titles
        stream.metaInterval = 4_096
        // 4 s ahead of real time (in the socket buffers), so a test process stalled by the full suite's load
        // does not starve the player into silence while the levels are measured.
        stream.burstBytes = 4 * stream.bytesPerSecond
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
        let question = try await spokenQuestion()
        let service = try await start(realtime: realtime, jarvis: jarvis, link: "duck")
        defer { _ = service.process.signal(SIGKILL) }

        let play = try await ctl(service, "play", radio)
        #expect(play.status == 0, "\(play)")
        // ICY titles reach `status`.
        let onAir = try await waitForStatus(service) {
            $0["media"]?["state"] == "playing" && $0["media"]?["title"] == "Stand-in Artist - First Song"
        }
        try #require(onAir != nil, "log:\n\(logText(service))")
        try await Task.sleep(for: .seconds(1))

        let beforeTap = playedFrames(service)
        let tapped = try await ctl(service, "tap")
        #expect(tapped.status == 0, "\(tapped)")
        let listening = try #require(await waitForStatus(service) { $0["state"] == "listening" }, "log:\n\(logText(service))")
        try speak(question, into: service)
        #expect(await realtime.waitForClientEvent("conversation.item.create", timeout: .seconds(15)), "log:\n\(logText(service))")
        let idle = try #require(await waitForStatus(service, timeout: .seconds(20)) {
            $0["state"] == "idle" && $0["media"]?["ducked"] == .bool(false)
        }, "log:\n\(logText(service))")
        try await Task.sleep(for: .seconds(1))
        await stopped(service)

        let output = try TestFiles.readSamples(service.played)
        let radioLevels = ToneMeter.levels(of: Double(Self.radioHz), inStereo48k: output)
        let block = ToneMeter.blockFrames
        let tapBlock = beforeTap / block, listeningBlock = listening / block, idleBlock = idle / block
        // The radio's level in the half second before the tap.
        let before = ToneMeter.median(radioLevels[(tapBlock - 50)..<tapBlock])
        #expect(before > -20, "the radio is audible before the conversation: \(before) dB")
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
        print("ducking through run: radio \(before) dB, ducked \(ducked) dB after \((duckedBy ?? -1) * 10) ms, "
              + "answer \(answerBlocks.count * 10) ms over it, restored after \((restoredBy ?? -1) * 10) ms to \(after) dB")

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

        #expect(try await ctl(service, "play", radio).status == 0)
        #expect(try await waitForStatus(service) { $0["media"]?["state"] == "playing" } != nil, "log:\n\(logText(service))")
        #expect(try await waitForStatus(service) { $0["media"]?["url"] == .string(radio) } != nil)
        #expect(try await ctl(service, "pause").status == 0)
        #expect(try await waitForStatus(service) { $0["media"]?["state"] == "paused" } != nil)
        #expect(try await ctl(service, "resume").status == 0)
        #expect(try await waitForStatus(service) { $0["media"]?["state"] == "playing" } != nil)
        let volume = try await ctl(service, "volume", "0.3")
        #expect(volume.status == 0, "\(volume)")
        let level = try await status(service)?["media"]?["volume"]?.numberValue
        #expect(level.map { abs($0 - 0.3) <= 0.05 } == true, "volume \(String(describing: level))")
        #expect(try await ctl(service, "stop").status == 0)
        #expect(try await waitForStatus(service) { $0["media"]?["state"] == "stopped" } != nil)
        let refused = try await ctl(service, "play", "file:///etc/passwd")
        #expect(refused.status != 0)
        await stopped(service)

        service = try await start(realtime: realtime, jarvis: jarvis, link: "verbs2")
        let restarted = try await status(service)?["media"]?["volume"]?.numberValue
        #expect(restarted == level, "volume after a restart \(String(describing: restarted)), before \(String(describing: level))")
        await stopped(service)
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

        #expect(try await ctl(service, "play", media.url("/flaky.mp3")).status == 0)
        #expect(try await waitForStatus(service) { $0["media"]?["state"] == "playing" } != nil, "log:\n\(logText(service))")
        media.route("/flaky.mp3", .status(503))
        // Gave up: stopped, and the assistant is asked to say so.
        #expect(try await waitForStatus(service, timeout: .seconds(20)) { $0["media"]?["state"] == "stopped" } != nil,
                "log:\n\(logText(service))")
        #expect(await realtime.waitForClientEvent("response.create", timeout: .seconds(10)), "log:\n\(logText(service))")
        let told = realtime.clientEvents(ofType: "conversation.item.create").map(\.text)
        #expect(told.contains { $0.contains("flaky.mp3") || $0.contains("stopped") }, "\(told)")
        #expect(logText(service).contains("gave up"), "log:\n\(logText(service))")
        await stopped(service)
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
