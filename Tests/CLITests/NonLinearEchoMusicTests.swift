import Basics
import Glibc
import Realtime
import TestProcess
import TestSupport
import Testing

/// The non-linear room with a Snapcast group's music on the box's `rooms` input (Debian's real snapserver):
/// the music is inside the echo canceller's reference as radio is, so its echo must neither start a turn
/// while the box listens nor interrupt the answer played over it (ducked).
extension NonLinearEchoBargeInTests {
    /// The stand-in's energy VAD threshold (`Kitchen`'s) and its start, three 20 ms windows above it.
    static let vadThreshold = 150.0
    static let vadStartWindows = 3

    @Test(.enabled(if: SnapServer.isInstalled, "snapserver is installed"))
    func theGroupsMusicEchoStartsNoTurnAndNeverInterruptsTheAnswer() async throws {
        let server = try await SnapServer.start(codec: "flac", bufferMs: 600, sources: [.pipe(name: "music")])
        let music = try Self.music()
        let feed = try server.feed("music") { first, frames in
            (0..<(frames * 2)).map { music[(first * 2 + $0) % music.count] }
        }
        // The media volume at full scale and `loudness_target` left at the service's default: the music as
        // loud as an owner would play it.
        let kitchen = try await Kitchen.start(
            in: dir, name: "music", media: "volume = 1.0\nstation_catalog_url = \"\"",
            snapcast: ["enabled = true", "server = \"127.0.0.1:\(server.streamPort)\"", "name = \"music\""],
            whileIdle: { service in
                let playing = try await service.waitForStatus(timeout: .seconds(20)) { $0["snapcast"]?["playing"] == .bool(true) }
                try #require(playing != nil, "the group never played; log:\n\(service.logText)\nsnapserver:\n\(server.log)")
                try await service.playOn(milliseconds: 4_000)  // idle at full level: the canceller learns the room
            })
        let (service, realtime, jarvis) = (kitchen.service, kitchen.realtime, kitchen.jarvis)
        defer { _ = service.process.signal(SIGKILL) }
        let heard = dir.file("music-heard.raw")

        // Phase 1: listening, the music ducked, nobody talks: its echo must start no turn for 8 s.
        let logAtTap = service.logText.count
        let heardAtTap = Self.fileSamples(heard)
        let echoIdle = Self.medianRMS(Array(try TestFiles.readSamples(heard).suffix(32_000)), window: 320)
        try await service.playOn(milliseconds: 8_000)
        let listened = String(service.logText.dropFirst(logAtTap))
        let status1 = try #require(try await service.status(), "log:\n\(service.logText)")
        let ducked = Array(try TestFiles.readSamples(heard).dropFirst(heardAtTap + 16_000))
        let (echoAtMic, echoStarts) = (Self.medianRMS(ducked, window: 320), Self.vadStarts(ducked, window: 320))
        let echoAbove = Self.windowRMS(ducked, window: 320).filter { $0 >= Self.vadThreshold }.count * 20
        let uplink1 = Self.uplink(realtime)
        let (loudest1, starts1) = (Self.loudestRMS(uplink1), Self.vadStarts(uplink1, window: 480))
        // Sent as the mic heard it, the ducked music's echo must start the server's VAD and hold it for most
        // of the time, or the absence of turns proves nothing.
        #expect(
            echoStarts >= 1 && echoAbove * 2 >= ducked.count / 16,
            "the music's echo must reach the mic above the server VAD's threshold (\(Self.vadThreshold) RMS), or this test proves nothing: it would start \(echoStarts) turn(s), \(echoAbove) of \(ducked.count / 16) ms above it, median 20 ms RMS \(echoAtMic)"
        )
        // The box sent the server its mic all along (the VAD heard what the canceller left, not nothing).
        #expect(uplink1.count >= 24 * 7_000, "the stand-in was sent \(uplink1.count / 24) ms of audio; log:\n\(service.logText)")
        #expect(!listened.contains("-> user_speaking"), "the music's echo became a turn; log:\n\(service.logText)")
        #expect(starts1 == 0, "the stand-in's VAD started \(starts1) turn(s) on the music's echo (loudest 20 ms RMS \(loudest1))")
        #expect(jarvis.recordedRequests.isEmpty, "log:\n\(service.logText)")
        #expect(status1["state"] == "listening", "\(status1)")
        #expect(status1["media"]?["ducked"] == .bool(true), "\(status1)")
        #expect(status1["snapcast"]?["playing"] == .bool(true), "\(status1)")

        // Phase 2: the question over the ducked music, then its answer plays alone over it to its end.
        let logAtQuestion = service.logText.count
        try await kitchen.answerPlayedAlone()
        try await service.playOn(milliseconds: 1_500)  // the echo guard after the answer, the music on
        let answered = String(service.logText.dropFirst(logAtQuestion))
        #expect(answered.contains("ai_speaking -> listening (playback progress)"), "the answer played to its end; log:\n\(answered)")
        #expect(!answered.contains("barge-in"), "log:\n\(answered)")
        #expect(realtime.clientEvents(ofType: "conversation.item.truncate").isEmpty)
        #expect(realtime.clientEvents(ofType: "response.cancel").isEmpty)
        #expect(jarvis.recordedRequests.count == 1, "the question became the one request; log:\n\(service.logText)")
        let echoTurns = occurrences(of: "speech_started while the assistant is audible", in: answered)
        #expect(realtime.clientEvents(ofType: "conversation.item.delete").count <= echoTurns)
        let status2 = try #require(try await service.waitForStatus { $0["state"] == "listening" }, "log:\n\(service.logText)")
        #expect(status2["barge_ins"]?.numberValue == 0, "\(status2)")
        #expect(status2["snapcast"]?["playing"] == .bool(true), "\(status2)")

        let reduction = { (status: JSONValue) in status["audio"]?["echo_reduction_db"]?.numberValue.map { "\($0) dB" } ?? "?" }
        print(
            "music over a non-linear echo: echo at the mic (median 20 ms RMS) \(Int(echoIdle)) idle, \(Int(echoAtMic)) ducked (\(echoAbove) of \(ducked.count / 16) ms above the VAD's threshold, \(echoStarts) VAD start(s) if sent), uplink \(uplink1.count / 24) ms, loudest \(Int(loudest1)) RMS, "
                + "\(starts1) VAD start(s) in 8 s of listening, echo reduction \(reduction(status1)); answer over it: "
                + "\(echoTurns) server VAD turn(s) on its echo ignored, \(occurrences(of: "voice paused", in: answered)) pause(s), echo reduction \(reduction(status2))"
        )

        await kitchen.stop()
        await feed.stop()
        await server.stop()
    }

    /// Four seconds of music-like sound (48 kHz stereo S16): a plucked melody with harmonics over a held
    /// chord tone, a bass line and noise hits, broadband and changing like music, about -12 dBFS RMS.
    static func music() throws -> [Int16] {
        let note = { (base: Int, rate: Int, step: Int) in "\(base)*pow(2\\,mod(floor(t*\(rate))*\(step)\\,12)/12)" }
        let (melody, pad) = (note(220, 4, 7), note(165, 1, 5))
        let channel =
            "0.25*exp(-2*mod(t\\,0.25))*(sin(2*PI*t*\(melody))+0.5*sin(4*PI*t*\(melody))+0.3*sin(6*PI*t*\(melody)))"
            + "+0.15*(sin(2*PI*t*\(pad))+0.5*sin(4*PI*t*\(pad)))+0.3*sin(2*PI*t*\(note(55, 1, 5)))+0.25*(random(0)*2-1)*exp(-25*mod(t\\,0.5))"
        let bytes = try MediaFixtures.toolOutput(
            "ffmpeg", extension: "s16",
            [
                "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "aevalsrc=exprs=\(channel)|\(channel):s=48000:d=4",
                "-f", "s16le", "-ac", "2", "-y", "%OUT%"
            ])
        return stride(from: 0, to: bytes.count - 1, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
    }

    /// Samples (16-bit) in the file at `path` so far.
    static func fileSamples(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) / 2 : 0
    }

    /// What the stand-in was sent (24 kHz PCM16).
    static func uplink(_ realtime: RealtimeStandIn) -> [Int16] {
        realtime.clientEvents(ofType: "input_audio_buffer.append")
            .flatMap { $0.json["audio"]?.stringValue.flatMap(Base64.decodeSamples) ?? [] }
    }

    static func windowRMS(_ samples: [Int16], window: Int) -> [Double] {
        stride(from: 0, to: samples.count - window + 1, by: window).map { start in
            (samples[start..<(start + window)].reduce(0.0) { $0 + Double($1) * Double($1) } / Double(window)).squareRoot()
        }
    }

    static func medianRMS(_ samples: [Int16], window: Int) -> Double {
        let sorted = windowRMS(samples, window: window).sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    static func loudestRMS(_ uplink: [Int16]) -> Double { windowRMS(uplink, window: 480).max() ?? 0 }

    /// The turns the stand-in's energy VAD would start on `samples` (`window`: 20 ms of them):
    /// `vadStartWindows` windows above its threshold start one, 200 ms below it end it.
    static func vadStarts(_ samples: [Int16], window: Int) -> Int {
        var (loud, quiet, inSpeech, starts) = (0, 0, false, 0)
        for rms in windowRMS(samples, window: window) {
            let above = rms >= vadThreshold
            if inSpeech {
                quiet = above ? 0 : quiet + 1
                if quiet >= 10 { (inSpeech, loud) = (false, 0) }
            } else {
                loud = above ? loud + 1 : 0
                if loud >= vadStartWindows { (inSpeech, quiet, starts) = (true, 0, starts + 1) }
            }
        }
        return starts
    }
}
