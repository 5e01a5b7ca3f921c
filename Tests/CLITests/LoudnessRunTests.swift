import Basics
import Glibc
import TestProcess
import TestSupport
import Testing

extension ServicesOneAtATime {
    /// Even loudness through the real `jarvis-voice run`: a podcast at −24 LUFS, a programme at −18 and a
    /// live station at −12 (pink noise made and measured by ffmpeg, encoded to MP3) play one after the
    /// other, then the assistant's voice at −26; the paced speaker's output is measured by ffmpeg's
    /// `ebur128`, independently of the product's meter. Each must land within ±2 LU of the −18 LUFS target
    /// 10 s after it started (the voice 3 s after it started: its leveler learns once per service).
    @Suite(.serialized, .timeLimit(.minutes(4))) struct LoudnessRunTests {
        static let target = -18.0
        let dir = TemporaryDirectory()

        /// `seconds` of stereo pink noise at `lufs`, as MP3 (128 kbit/s CBR, so the live stand-in's pacing
        /// matches it); returns the file's bytes and the loudness ffmpeg measures in the decoded MP3.
        func pinkNoiseMP3(lufs: Double, seconds: Int, seed: Int) async throws -> (bytes: [UInt8], measured: Double) {
            let raw = dir.file("noise-\(seed).raw"), mp3 = dir.file("noise-\(seed).mp3"), decoded = dir.file("noise-\(seed)-decoded.raw")
            try await ffmpeg(
                [
                    "-f", "lavfi", "-i", "anoisesrc=color=pink:seed=\(seed):amplitude=0.2:sample_rate=44100", "-t", String(seconds),
                    "-ac", "2", "-f", "s16le", "-y", raw
                ])
            let made = try #require(try await FFmpegLoudness.integrated(rawFile: raw, sampleRate: 44_100, channels: 2))
            try await ffmpeg(
                [
                    "-f", "s16le", "-ar", "44100", "-ac", "2", "-i", raw, "-af", "volume=\(lufs - made)dB",
                    "-c:a", "libmp3lame", "-b:a", "128k", "-y", mp3
                ])
            try await ffmpeg(["-i", mp3, "-f", "s16le", "-ar", "44100", "-ac", "2", "-y", decoded])
            let measured = try #require(try await FFmpegLoudness.integrated(rawFile: decoded, sampleRate: 44_100, channels: 2))
            return (try TestFiles.read(mp3), measured)
        }

        func ffmpeg(_ arguments: [String]) async throws {
            let result = try await ChildProcess.run(["ffmpeg", "-nostdin", "-loglevel", "error"] + arguments, stdout: .discard)
            try #require(result.status == 0, "ffmpeg \(arguments.joined(separator: " ")): \(result)")
        }

        /// 24 kHz mono "speech": pink-ish noise in 200 ms syllables with 100 ms pauses, at `lufs` as heard on
        /// a stereo speaker (ffmpeg's dual-mono measure).
        func voice(lufs: Double, seconds: Double) async throws -> [Int16] {
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            var (b0, b1) = (0.0, 0.0)
            let frames = Int(seconds * 24_000)
            let unit: [Double] = (0..<frames).map { frame in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let white = Double(Int64(bitPattern: state) >> 11) / Double(1 << 52)
                b0 = 0.99 * b0 + 0.1 * white
                b1 = 0.9 * b1 + 0.3 * white
                let syllable = (frame % 7_200) < 4_800 ? 1.0 : 0.0
                return (b0 + b1 + 0.2 * white) * syllable * 0.25
            }
            let probe = dir.file("voice-probe.raw")
            let samples = unit.map { Int16(max(-32_768, min(32_767, ($0 * 32_768).rounded()))) }
            try TestFiles.write(samples: samples, to: probe)
            let made = try #require(try await FFmpegLoudness.integrated(rawFile: probe, sampleRate: 24_000, channels: 1, dualMono: true))
            let gain = pow(10, (lufs - made) / 20)
            return unit.map { Int16(max(-32_768, min(32_767, ($0 * gain * 32_768).rounded()))) }
        }

        /// LUFS of the speaker's output (48 kHz stereo) from frame `start` for `seconds`, by ffmpeg.
        func speakerLoudness(_ service: ServiceUnderTest, fromFrame start: Int, seconds: Double) async throws -> Double {
            try #require(
                try await FFmpegLoudness.integrated(
                    rawFile: service.played, sampleRate: 48_000, channels: 2, start: Double(start) / 48_000, duration: seconds))
        }

        @Test func threeSources12LUApartAndTheVoiceLandWithin2LUOfTheTarget() async throws {
            let podcast = try await pinkNoiseMP3(lufs: -24, seconds: 20, seed: 11)
            let programme = try await pinkNoiseMP3(lufs: -18, seconds: 20, seed: 12)
            let station = try await pinkNoiseMP3(lufs: -12, seconds: 8, seed: 13)
            var script = RealtimeStandInScript()
            script.answerAudio = try await voice(lufs: -26, seconds: 9)
            let realtime = try await RealtimeStandIn.start(script: script)
            let jarvis = try await TermLLMStandIn.start()
            let media = try await MediaStandIn.start()
            media.route("/podcast.mp3", .file(podcast.bytes, contentType: "audio/mpeg"))
            media.route("/programme.mp3", .file(programme.bytes, contentType: "audio/mpeg"))
            var live = MediaStandIn.LiveStream(audio: station.bytes)
            live.burstBytes = 96_000
            media.route("/station.mp3", .live(live))
            let service = try ServiceUnderTest.start(
                in: dir, name: "loudness", realtime: realtime, jarvis: jarvis,
                mediaSection: "volume = 1.0\nstation_catalog_url = \"\"\nloudness_target = \(Self.target)")
            defer { _ = service.process.signal(SIGKILL) }
            try #require(try await service.ctlWhenReady("status"), "log:\n\(service.logText)")

            var report: [String] = []
            for (name, source) in [("podcast", podcast), ("programme", programme), ("station", station)] {
                let play = try await service.ctl("play", media.url("/\(name).mp3"))
                try #require(play.status == 0, "\(play)\nlog:\n\(service.logText)")
                let started = service.playedFrames
                try await service.playOn(milliseconds: 14_000)
                let first = try await speakerLoudness(service, fromFrame: started, seconds: 3)
                let settled = try await speakerLoudness(service, fromFrame: started + 48_000 * 10, seconds: 4)
                report.append("\(name) \(source.measured) LUFS in: \(first) at 0–3 s, \(settled) at 10–14 s")
                #expect(
                    abs(settled - Self.target) <= 2,
                    "\(name): \(source.measured) LUFS in, \(settled) LUFS at the speaker after 10 s; log:\n\(service.logText)")
            }
            #expect(try await service.ctl("stop").status == 0)
            try await service.playOn(milliseconds: 500)

            let beforeSay = service.playedFrames
            let say = try await service.ctl("say", "The", "laundry", "is", "done.")
            try #require(say.status == 0, "\(say)\nlog:\n\(service.logText)")
            try await service.playOn(milliseconds: 300)
            await service.stop()
            // Where the voice starts on the speaker: the first 10 ms block above −50 dBFS after the request.
            let output = try TestFiles.readSamples(service.played)
            let voiceStart = try #require(
                stride(from: beforeSay, to: output.count / 2 - 480, by: 480).first { frame in
                    let block = output[(frame * 2)..<((frame + 480) * 2)]
                    let power = block.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(block.count)
                    return power > 32_768.0 * 32_768.0 * 1e-5
                }, "the voice was not heard")
            let voice = try await speakerLoudness(service, fromFrame: voiceStart + 48_000 * 3, seconds: 5.5)
            report.append("voice −26 LUFS in: \(voice) LUFS at 3–8.5 s")
            #expect(abs(voice - Self.target) <= 2, "the voice: \(voice) LUFS at the speaker; log:\n\(service.logText)")
            print("loudness through run (target \(Self.target) LUFS): " + report.joined(separator: "; "))

            await realtime.shutdown()
            await jarvis.stop()
            await media.stop()
        }
    }
}
