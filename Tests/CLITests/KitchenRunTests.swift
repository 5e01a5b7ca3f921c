import ALSATestbed
import AudioCore
import Basics
import Glibc
import Realtime
import TestProcess
import TestSupport
import Testing

/// The owner's everyday commands through the real `jarvis-voice run` on the paced devices: `ctl say`
/// (heard on the speaker before it exits 0; a plain error when the API is unreachable), `ctl
/// voice-volume` (measured on the output, persisted across a restart, in `status`), and the offline case
/// (a tap with the Realtime API unreachable: offline earcon, one journal line, radio unducked, and the
/// next tap works once the API is back).
@Suite(.serialized, .timeLimit(.minutes(3))) struct KitchenRunTests {
    static let answerHz = 1_500.0
    let dir = TemporaryDirectory()
    let media = MediaRunTests()

    func start(realtime: RealtimeStandIn, jarvis: TermLLMStandIn, link: String) async throws -> ServiceUnderTest {
        try await media.start(in: dir, realtime: realtime, jarvis: jarvis, link: link, timeout: .seconds(20))
    }

    func radio(_ server: MediaStandIn, frequency: Int) throws -> String {
        var stream = MediaStandIn.LiveStream(audio: try MediaFixtures.sineMP3(seconds: 4, frequency: frequency, sampleRate: 48_000))
        stream.burstBytes = 96_000
        server.route("/radio.mp3", .live(stream))
        return server.url("/radio.mp3")
    }

    static func tone(milliseconds: Int, frequency: Double, amplitude: Double = 8_000) -> [Int16] {
        (0..<(24 * milliseconds)).map { Int16(amplitude * sin(Double($0) * 2 * .pi * frequency / 24_000)) }
    }

    /// 24 kHz mono `samples` scaled to the service's default loudness target as a stereo speaker plays them.
    static func atLoudnessTarget(_ samples: [Int16]) -> [Int16] {
        var meter = LoudnessMeter(sampleRate: 24_000, channels: 1, dualMono: true, integrated: true)
        samples.withUnsafeBufferPointer { meter.process($0) }
        let gain = pow(10, (MediaRunTests.loudnessTarget - (meter.integratedLoudness ?? MediaRunTests.loudnessTarget)) / 20)
        return samples.map { Int16(max(-32_768, min(32_767, (Double($0) * gain).rounded()))) }
    }

    /// The loud blocks of `frequency` in `range` of the output (blocks of 10 ms).
    static func loudBlocks(_ levels: [Double], _ range: Range<Int>, above threshold: Double) -> [Double] {
        levels[max(0, range.lowerBound)..<min(levels.count, range.upperBound)].filter { $0 > threshold }
    }

    @Test func sayIsHeardBeforeItExitsAndVoiceVolumeHalvesItsLevelOnly() async throws {
        var script = RealtimeStandInScript()
        // At the loudness target, so the voice's leveler leaves it as it is and the voice volume alone sets it.
        script.answerAudio = Self.atLoudnessTarget(Self.tone(milliseconds: 1_200, frequency: Self.answerHz))
        let realtime = try await RealtimeStandIn.start(script: script)
        let jarvis = try await TermLLMStandIn.start()
        let server = try await MediaStandIn.start()
        let radio = try radio(server, frequency: MediaRunTests.radioHz)
        let service = try await start(realtime: realtime, jarvis: jarvis, link: "say")
        defer { _ = service.process.signal(SIGKILL) }

        #expect(try await service.ctl("play", radio).status == 0)
        try #require(await media.waitForStatus(service) { $0["media"]?["state"] == "playing" } != nil, "log:\n\(service.logText)")
        #expect(try await service.status()?["voice_volume"]?.numberValue == 1, "the default voice volume")
        // Radio before the announcement, for its level, once the leveler has brought it to the target.
        try await service.playOn(milliseconds: MediaRunTests.levelerSettlesMilliseconds)
        let beforeFirst = service.playedFrames
        let first = try await service.ctl("say", "The", "laundry", "is", "done.")
        let afterFirst = service.playedFrames
        #expect(first.status == 0, "\(first)\nlog:\n\(service.logText)")
        #expect(first.stdout.contains("spoken"))
        let item = realtime.clientEvents(ofType: "conversation.item.create").first?.json
        #expect(
            item?["item"]?["content"] == [["type": "input_text", "text": "The laundry is done."]],
            "the text goes out verbatim: \(String(describing: item))")
        #expect(realtime.clientEvents(ofType: "response.create").first?.json["response"]?["tool_choice"] == "none")
        #expect(realtime.clientEvents(ofType: "input_audio_buffer.append").isEmpty, "no microphone")

        let volume = try await service.ctl("voice-volume", "0.5")
        #expect(volume.status == 0, "\(volume)")
        #expect(try await service.status()?["voice_volume"]?.numberValue == 0.5)
        #expect(try await service.status()?["media"]?["volume"]?.numberValue == 1, "the media volume is separate")
        var info = stat()
        #expect(stat(dir.file("state/voice-volume"), &info) == 0 && info.st_mode & 0o777 == 0o600, "persisted, 0600")
        try await service.playOn(milliseconds: 1_000)  // the radio restored after the first announcement, for its level
        let beforeSecond = service.playedFrames
        let second = try await service.ctl("say", "Again.")
        let afterSecond = service.playedFrames
        #expect(second.status == 0, "\(second)\nlog:\n\(service.logText)")
        await service.stop()

        let output = try TestFiles.readSamples(service.played)
        let block = ToneMeter.blockFrames
        let answer = ToneMeter.levels(of: Self.answerHz, inStereo48k: output)
        let full = Self.loudBlocks(answer, (beforeFirst / block)..<(afterFirst / block), above: -35)
        let half = Self.loudBlocks(answer, (beforeSecond / block)..<(afterSecond / block), above: -35)
        // The speaker file runs ahead of the ear by the device buffer; the whole 1.2 s was written before ctl returned.
        #expect(full.count * 10 >= 1_000, "heard \(full.count * 10) ms of the announcement before ctl say returned")
        #expect(half.count * 10 >= 1_000, "heard \(half.count * 10) ms of the second announcement")
        let difference = ToneMeter.median(full[...]) - ToneMeter.median(half[...])
        #expect(abs(difference - 6.02) < 1, "voice 1.0 vs 0.5: \(difference) dB")
        let radioLevels = ToneMeter.levels(of: Double(MediaRunTests.radioHz), inStereo48k: output)
        let radioBefore = ToneMeter.median(radioLevels[(beforeFirst / block - 50)..<(beforeFirst / block)])
        let radioAfter = ToneMeter.median(radioLevels[(beforeSecond / block - 50)..<(beforeSecond / block)])
        #expect(abs(radioBefore - radioAfter) < 1, "media unaffected by the voice volume: \(radioBefore) vs \(radioAfter) dB")
        print(
            "say through run: \(full.count * 10) ms heard before exit 0; voice 1.0 \(ToneMeter.median(full[...])) dB, "
                + "0.5 \(ToneMeter.median(half[...])) dB (\(difference) dB); radio \(radioBefore) / \(radioAfter) dB")

        // Persisted: a restarted service starts at 0.5.
        let again = try await start(realtime: realtime, jarvis: jarvis, link: "say2")
        defer { _ = again.process.signal(SIGKILL) }
        #expect(try await again.status()?["voice_volume"]?.numberValue == 0.5)
        await again.stop()
        await realtime.shutdown()
        await jarvis.stop()
        await server.stop()
    }

    @Test func sayWithTheAPIUnreachableFailsWithAPlainSentence() async throws {
        let realtime = try await RealtimeStandIn.start()
        await realtime.shutdown()  // nothing listens on its port any more
        let jarvis = try await TermLLMStandIn.start()
        let service = try await start(realtime: realtime, jarvis: jarvis, link: "saydown")
        defer { _ = service.process.signal(SIGKILL) }
        let started = ContinuousClock.now
        let result = try await service.ctl("say", "hello")
        let elapsed = started.duration(to: .now)
        #expect(result.status == 1, "\(result)")
        #expect(
            result.stderr.contains("jarvis-voice ctl: say: cannot reach the Realtime API at 127.0.0.1: connection refused; check the network"),
            "\(result)")
        #expect(elapsed < .seconds(5), "answered after \(elapsed)")
        await service.stop()
        await jarvis.stop()
    }

    @Test func offlineTapPlaysTheOfflineEarconKeepsTheRadioAndTheNextTapWorks() async throws {
        let script = RealtimeStandInScript()
        let first = try await RealtimeStandIn.start(script: script)
        let port = first.port
        await first.shutdown()  // "the internet is down": the Realtime URL refuses connections
        let jarvis = try await TermLLMStandIn.start()
        let server = try await MediaStandIn.start()
        let radioHz = 1_000
        let radio = try radio(server, frequency: radioHz)
        let service = try await start(realtime: first, jarvis: jarvis, link: "offline")
        defer { _ = service.process.signal(SIGKILL) }
        #expect(try await service.ctl("play", radio).status == 0)
        try #require(await media.waitForStatus(service) { $0["media"]?["state"] == "playing" } != nil, "log:\n\(service.logText)")
        try await service.playOn(milliseconds: MediaRunTests.levelerSettlesMilliseconds)

        let tapFrame = service.playedFrames
        #expect(try await service.ctl("tap").status == 0)
        let tapped = ContinuousClock.now  // the service has the tap once ctl returns
        let failedFrame = try #require(
            await media.waitForStatus(service) {
                $0["state"] != "connecting" && $0["state"] != "idle" && $0["media"]?["ducked"] == .bool(false)
            }, "log:\n\(service.logText)")
        let leftConnecting = tapped.duration(to: .now)
        let line = "cannot reach the Realtime API at 127.0.0.1: connection refused; check the network"
        #expect(service.logText.contains(line), "log:\n\(service.logText)")
        #expect(leftConnecting < .seconds(3), "out of connecting and unducked after \(leftConnecting)")
        try #require(await media.waitForStatus(service) { $0["state"] == "idle" } != nil)
        let lines = service.logText.split(separator: "\n").filter { $0.contains("cannot reach the Realtime API") }
        #expect(lines.count == 1, "one journal line for the event: \(lines)")
        let journal = service.logText.split(separator: "\n")
        if let start = journal.firstIndex(where: { $0.contains("-> connecting (tap)") }) {
            print("offline tap journal:\n" + journal[start..<min(journal.count, start + 12)].joined(separator: "\n"))
        }
        #expect(try await service.status()?["media"]?["state"] == "playing", "the local radio kept playing")
        let restoredFrame = service.playedFrames

        // The network is back: the next tap connects.
        let back = try await RealtimeStandIn.start(script: script, port: port)
        #expect(try await service.ctl("tap").status == 0)
        #expect(try await media.waitForStatus(service) { $0["state"] == "listening" } != nil, "log:\n\(service.logText)")
        #expect(back.connectionCount == 1)
        await service.stop()

        let output = try TestFiles.readSamples(service.played)
        let block = ToneMeter.blockFrames
        let tapBlock = tapFrame / block, failedBlock = failedFrame / block
        // The offline earcon is G4 E4 C4 (120/120/160 ms, peak -12 dBFS): its first and last notes stand out of
        // the radio (1 kHz, whose leakage sets the baseline) right after the failure.
        let window = tapBlock..<(failedBlock + 100)
        let g4 = ToneMeter.levels(of: 392, inStereo48k: output)
        let c4 = ToneMeter.levels(of: 261.63, inStereo48k: output)
        let g4Baseline = ToneMeter.median(g4[(tapBlock - 50)..<tapBlock])
        let c4Baseline = ToneMeter.median(c4[(tapBlock - 50)..<tapBlock])
        let firstNote = Self.loudBlocks(g4, window, above: g4Baseline + 15)
        let lastNote = c4[window].max() ?? -.infinity
        let trace = window.map { "\($0 - tapBlock):\(Int(g4[$0]))/\(Int(c4[$0]))" }
        #expect(firstNote.count >= 6, "offline earcon's G4: \(firstNote.count * 10) ms above \(g4Baseline + 15) dB; \(trace)")
        #expect(lastNote > c4Baseline + 12, "offline earcon's C4 peak \(lastNote) dB, baseline \(c4Baseline) dB; \(trace)")
        let radioLevels = ToneMeter.levels(of: Double(radioHz), inStereo48k: output)
        let before = ToneMeter.median(radioLevels[(tapBlock - 50)..<tapBlock])
        let restored = ToneMeter.median(radioLevels[(restoredFrame / block - 50)..<(restoredFrame / block)])
        #expect(abs(before - restored) < 1, "radio unducked: \(before) dB before, \(restored) dB after")
        print(
            "offline tap through run: out of connecting after \(leftConnecting), earcon G4 \(firstNote.count * 10) ms, C4 peak \(lastNote) dB, radio \(before) -> \(restored) dB"
        )
        await back.shutdown()
        await jarvis.stop()
        await server.stop()
    }
}
