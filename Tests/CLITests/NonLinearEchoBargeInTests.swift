import ALSATestbed
import Glibc
import TestProcess
import TestSupport
import Testing

/// `jarvis-voice run` in a room whose loudspeaker is not linear: the paced mic hears the paced speaker
/// through a saturating (soft clip) and band-limited (200 Hz high-pass) loudspeaker, about as loud as the
/// user, so the linear echo canceller leaves a residual that the stand-in server's energy VAD hears as
/// speech. While only the assistant talks it must finish its answer (no barge-in, no echo turn answered);
/// when the user talks over it, it must fall silent at once (the voice paused) and then stop (cancelled and
/// truncated once the detector has heard enough of him).
@Suite(.timeLimit(.minutes(3))) struct NonLinearEchoBargeInTests {
    static let question = "what is on my calendar today"
    static let answer =
        "You have a dentist appointment at ten in the morning, then lunch with Sam at noon, "
        + "and the plumber comes at three in the afternoon. Remember to buy milk and bread on the way home."
    static let interruption = "wait, stop, what about tomorrow"
    /// The loudspeaker: echo gain 1 (as loud as the user's espeak-ng voice), 8 ms away, clipped, high-passed.
    static let room = PacedPCMOptions(
        link: "kitchen", echoGain: 1.0, echoDelayMilliseconds: 8, followInfile: true,
        echoClip: 0.2, echoHighpassHz: 200)
    let dir = TemporaryDirectory()

    @Test func theEchoNeverInterruptsTheAnswerButATalkerStopsItFast() async throws {
        let kitchen = try await Kitchen.start(in: dir, name: "echo")
        let (service, realtime, jarvis) = (kitchen.service, kitchen.realtime, kitchen.jarvis)
        let (question, interruption, silence) = (kitchen.question, kitchen.interruption, kitchen.silence)
        defer { _ = service.process.signal(SIGKILL) }

        // Phase 1: the question, then only the assistant talks (far end only), loud and non-linear.
        try await kitchen.answerPlayedAlone()
        let log1 = service.logText
        #expect(log1.contains("ai_speaking -> listening (playback progress)"), "the answer played to its end; log:\n\(log1)")
        #expect(!log1.contains("barge-in"), "log:\n\(log1)")
        #expect(realtime.clientEvents(ofType: "conversation.item.truncate").isEmpty)
        #expect(realtime.clientEvents(ofType: "response.cancel").isEmpty)
        #expect(jarvis.recordedRequests.count == 1, "no echo turn became a request")
        let echoTurns = occurrences(of: "speech_started while the assistant is audible", in: log1)
        #expect(echoTurns >= 1, "the server's VAD must hear the residual echo, or this phase proves nothing; log:\n\(log1)")
        #expect(realtime.clientEvents(ofType: "conversation.item.delete").count <= echoTurns)
        // `status` counts what the journal tells (published once the event is handled; an echo turn
        // may still end while it is read).
        let ignoredBefore = occurrences(of: Self.echoTurnIgnored, in: service.logText)
        let status1 = try #require(
            try await service.waitForStatus {
                ($0["echo_turns_ignored"]?.numberValue ?? -1) >= Double(ignoredBefore)
            }, "log:\n\(service.logText)")
        let ignoredAfter = occurrences(of: Self.echoTurnIgnored, in: service.logText)
        #expect(status1["echo_turns_ignored"]!.numberValue! <= Double(ignoredAfter), "\(status1)")
        #expect(status1["barge_ins"]?.numberValue == 0, "\(status1)")
        #expect(status1["audio"]?["capture_running"] == .bool(true), "\(status1)")
        #expect(status1["audio"]?["playback_running"] == .bool(true), "\(status1)")
        #expect(status1["audio"]?["echo_reduction_db"]?.numberValue != nil, "\(status1)")

        // Phase 2: the question again; while its answer plays, the user talks over it (double talk).
        try service.speak(question + silence)
        try #require(await service.waitForState("ai_speaking"), "log:\n\(service.logText)")
        try await service.playOn(milliseconds: 1_500)
        let logBeforeTalk = service.logText.count
        let heardAtSpeech = service.playedFrames
        try service.speak(interruption + silence)
        #expect(await realtime.waitForClientEvent("conversation.item.truncate"), "log:\n\(service.logText)")
        #expect(service.logText.contains("barge-in"), "log:\n\(service.logText)")
        let phase2 = String(service.logText.dropFirst(logBeforeTalk))
        #expect(phase2.contains("voice paused"), "the voice pauses before the stop; log:\n\(service.logText)")
        let stopped2 = try await service.waitForStatus { $0["barge_ins"]?.numberValue == 1 }
        #expect(stopped2 != nil, "log:\n\(service.logText)")
        // The pause took back what the speaker had queued (a period after it, not the whole buffer).
        #expect((stopped2?["audio"]?["playback_take_backs"]?.numberValue ?? 0) >= 1, "\(String(describing: stopped2))")
        let silencing = try await whenTheAnswerFellSilent(in: service, talker: interruption, heardAt: heardAtSpeech, logBefore: logBeforeTalk)
            .silencing
        let (words, stopped, latency, bound) = (silencing.words, silencing.stopped, silencing.latency, silencing.bound)
        let onset = words.first ?? 0
        let pausesAlone = occurrences(of: "voice paused", in: log1)
        print(
            "non-linear echo: \(echoTurns) server VAD turn(s) on the echo ignored, \(pausesAlone) pause(s) while it talked alone; "
                + "barge-in silenced the answer \(latency) ms after the talker started (his words at \(words) ms)")
        let replay = latency > bound ? Self.keepForReplay(dir, name: "echo") : ""
        let message: Comment =
            "the assistant stopped \(latency) ms after the user started talking (\(silencing.xruns) xruns in this phase)\(replay); log:\n\(service.logText)"
        // A known gap (issue #11): over this loud, non-linear echo the near-end detectors can miss a first word
        // only a few dB above it at some alignments with the answer (Benchmarks/aec/barge_in_sweep.py: none with
        // this test's voice since the pitch rule, 2 with a deeper one), and the answer stops at the next word.
        // That is a known issue while it stops within the bound of a later word's onset; anything slower fails.
        let spoken = stopped - heardAtSpeech / 48
        if latency > bound, let word = words.last(where: { $0 <= spoken }), word != onset, spoken - word <= bound {
            withKnownIssue("the detector missed the first word; the answer stopped \(spoken - word) ms after a later one\(replay)") {
                #expect(latency <= bound, message)
            }
        } else {
            #expect(latency <= bound, message)
        }

        await kitchen.stop()
    }

    /// The user talks as the answer begins (the moment the service reports `ai_speaking`: his first sound
    /// 20 ms before to 40 ms after the answer's, up to 200 ms after on a loaded machine). In each band's onset
    /// the reference barely plays, and the detector and the mic rule must not learn him there as the answer's
    /// echo (without the onset rule: 0.8 s in 2 of 5 runs; NonLinearEchoVerdictTests measures it offline), nor
    /// may a first frame that plays only the answer's low bands, distorted into the others, do the same there
    /// (0.8-1.5 s without its rule; ResidualEchoDistortedOnsetTests). The answer must fall silent as fast as
    /// over its middle.
    @Test func aTalkerWhoStartsAsTheAnswerBeginsStopsItFast() async throws {
        let kitchen = try await Kitchen.start(in: dir, name: "onset")
        let (service, realtime) = (kitchen.service, kitchen.realtime)
        let (question, interruption, silence) = (kitchen.question, kitchen.interruption, kitchen.silence)
        defer { _ = service.process.signal(SIGKILL) }
        // The first answer plays alone (the canceller converges on the room, as in the other tests)...
        try await kitchen.answerPlayedAlone()
        // ...and the user talks as the second begins (no pad after the question: the paced mic hears silence
        // once its file is read, so his words come with the next period, not after a queued second of pad).
        let beforeAnswer = service.playedFrames
        try service.speak(question)
        try #require(await service.waitForState("ai_speaking"), "log:\n\(service.logText)")
        let logBeforeTalk = service.logText.count
        let heardAtSpeech = service.playedFrames
        try service.speak(interruption + silence)
        #expect(await realtime.waitForClientEvent("conversation.item.truncate"), "log:\n\(service.logText)")
        let (played, silencing) = try await whenTheAnswerFellSilent(
            in: service, talker: interruption, heardAt: heardAtSpeech, logBefore: logBeforeTalk)
        let talkerStart = heardAtSpeech / 48 + (silencing.words.first ?? 0)
        let answerSound = Self.soundStartMilliseconds(inStereo48k: played, from: beforeAnswer).map { talkerStart - $0 }
        print(
            "talker as the answer begins (\(answerSound.map(String.init) ?? "?") ms after its first sound): "
                + "the answer silenced \(silencing.latency) ms after he started")
        let replay = silencing.latency > silencing.bound ? Self.keepForReplay(dir, name: "onset") : ""
        #expect(
            silencing.latency <= silencing.bound,
            "the assistant stopped \(silencing.latency) ms after the user started talking (\(silencing.xruns) xruns)\(replay); log:\n\(service.logText)"
        )

        await kitchen.stop()
    }

    /// A short voiced sound near the device (a "hm", a clink of a glass on a counter that rings): the
    /// detector hears it, the answer pauses, and since it is shorter than the rule's minimum speech the
    /// answer goes on where it paused and plays to its end, never cut, never truncated.
    @Test func aShortSoundOverTheAnswerPausesItAndTheAnswerGoesOn() async throws {
        let kitchen = try await Kitchen.start(in: dir, name: "sound")
        let (service, realtime, jarvis) = (kitchen.service, kitchen.realtime, kitchen.jarvis)
        let (question, silence) = (kitchen.question, kitchen.silence)
        defer { _ = service.process.signal(SIGKILL) }
        // The first answer plays alone (the canceller converges on the room, as in the other test)...
        try await kitchen.answerPlayedAlone()
        // ...and 1.5 s into the second, the sound.
        try service.speak(question + silence)
        try #require(await service.waitForState("ai_speaking"), "log:\n\(service.logText)")
        try await service.playOn(milliseconds: 1_500)
        let logBefore = service.logText.count
        try service.speak(Self.voicedSound(milliseconds: 150, like: kitchen.interruption) + silence)
        try #require(await service.waitForState("listening"), "log:\n\(service.logText)")
        let log = String(service.logText.dropFirst(logBefore))
        #expect(log.contains("voice paused"), "the detector must hear the sound, or this proves nothing; log:\n\(log)")
        #expect(log.contains("the voice goes on"), "log:\n\(log)")
        #expect(log.contains("ai_speaking -> listening (playback progress)"), "the answer played to its end; log:\n\(log)")
        #expect(!log.contains("barge-in"), "log:\n\(log)")
        #expect(realtime.clientEvents(ofType: "conversation.item.truncate").isEmpty, "whole log:\n\(service.logText)")
        #expect(realtime.clientEvents(ofType: "response.cancel").isEmpty)
        #expect(jarvis.recordedRequests.count == 2, "the sound did not become a request; whole log:\n\(service.logText)")
        let status = try #require(
            try await service.waitForStatus { ($0["voice_pauses_resumed"]?.numberValue ?? 0) >= 1 },
            "log:\n\(service.logText)")
        #expect(status["barge_ins"]?.numberValue == 0, "\(status)")
        let resumed = log.split(separator: "\n").first { $0.contains("the voice goes on") } ?? ""
        print("short sound over the answer: \(resumed.drop { $0 != ":" }.dropFirst())")

        await kitchen.stop()
    }

    /// When the answer fell silent for a talker saying `talker`, appended to the mic when the speaker had
    /// played `heardAt` frames.
    struct Silencing {
        /// His words' onsets in ms, when the speaker's output fell silent (ms from its start), and that
        /// moment after his first sound.
        let words: [Int]
        let stopped: Int
        let latency: Int
        /// Overruns and underruns since the talk began, and the bound the latency must meet: 500 ms while
        /// the devices ran in real time; when the machine starved the service (the mic's audio arrived
        /// late or the speaker ran dry) the timing is the machine's, not the detector's, and the answer must
        /// still stop within 3 s.
        let xruns: Int
        var bound: Int { xruns == 0 ? 500 : 3_000 }
    }

    /// Lets the speaker play 600 ms more, then reads what it played (48 kHz stereo) and when it fell silent.
    func whenTheAnswerFellSilent(in service: ServiceUnderTest, talker: [Int16], heardAt: Int, logBefore: Int) async throws
        -> (played: [Int16], silencing: Silencing)
    {
        try await service.playOn(milliseconds: 600)
        let played = (try? TestFiles.readSamples(service.played)) ?? []
        let words = Self.wordOnsetsMilliseconds(talker, rate: 16_000)
        let stopped = try #require(Self.silenceStartMilliseconds(inStereo48k: played, from: heardAt), "the answer never stopped")
        let xruns = occurrences(of: ", recovered", in: String(service.logText.dropFirst(logBefore)))
        return (played, Silencing(words: words, stopped: stopped, latency: stopped - (heardAt / 48 + (words.first ?? 0)), xruns: xruns))
    }

    /// `milliseconds` of a voiced sound (140 Hz and its harmonics up to 4 kHz, equally loud, Hann-shaped)
    /// at the RMS of `speech`'s louder samples.
    static func voicedSound(milliseconds: Int, like speech: [Int16]) -> [Int16] {
        let count = 16 * milliseconds
        var sound = (0..<count).map { n -> Double in
            let t = Double(n) / 16_000
            let harmonics = (1...28).reduce(0.0) { $0 + sin(2 * Double.pi * 140 * Double($1) * t + Double($1 * $1)) }
            return harmonics * (0.5 - 0.5 * cos(2 * Double.pi * Double(n) / Double(count - 1)))
        }
        let power = { (x: [Double]) in x.reduce(0) { $0 + $1 * $1 } / Double(max(x.count, 1)) }
        let loud = speech.map { Double($0) }.filter { abs($0) > 1_000 }
        let scale = (power(loud) / power(sound)).squareRoot()
        sound = sound.map { $0 * scale }
        return sound.map { Int16(clamping: Int($0.rounded())) }
    }

    static let echoTurnIgnored = "ignored a turn the server heard while the assistant spoke"

    /// Copies what the mic heard and the speaker played in room `name` out of the test's directory (which
    /// goes with the test) for Benchmarks/aec/replay_barge_in.py; returns the words that say where.
    static func keepForReplay(_ dir: TemporaryDirectory, name: String) -> String {
        var template = Array("/tmp/jarvis-voice-barge-in-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { return "" }
        let kept = String(cString: made)
        for file in ["\(name)-heard.raw", "\(name)-played.raw"] {
            guard (try? TestFiles.write(TestFiles.read(dir.file(file)), to: kept + "/" + file)) != nil else { return "" }
        }
        return "; the mic and the speaker are kept in \(kept) for Benchmarks/aec/replay_barge_in.py"
    }

    /// `jarvis-voice run` in `room` with a sensitive stand-in server VAD (energy, about -47 dBFS, like the
    /// real one on speech-like residue) and the stand-ins' answer, tapped into a conversation: listening.
    struct Kitchen {
        let realtime: RealtimeStandIn
        let jarvis: TermLLMStandIn
        let service: ServiceUnderTest
        let question: [Int16]
        let interruption: [Int16]
        let silence = [Int16](repeating: 0, count: 16_000)

        /// `configure` changes the stand-in's script after the room's own settings (a preamble, say).
        /// `media` and `snapcast` are extra lines for those tables (a Snapcast group the box plays);
        /// `whileIdle` runs once the service answers, before the tap (the group's music heard while idle).
        static func start(
            in dir: TemporaryDirectory, name: String, media: String = "", snapcast: [String] = [],
            configure: (inout RealtimeStandInScript) async throws -> Void = { _ in },
            whileIdle: (ServiceUnderTest) async throws -> Void = { _ in }
        ) async throws -> Kitchen {
            var script = RealtimeStandInScript()
            script.answerAudio = try await SpeechSynthesis.speak(answer, rate: 24_000, directory: dir.path, name: "answer")
            script.answerTranscript = answer
            script.vadThresholdRMS = 150
            try await configure(&script)
            let realtime = try await RealtimeStandIn.start(script: script)
            let jarvis = try await TermLLMStandIn.start()
            var mic = room
            mic.infile = dir.file("\(name)-mic.raw")
            mic.outfile = dir.file("\(name)-heard.raw")  // what the service's mic read, echo included
            try TestFiles.write([], to: dir.file("\(name)-mic.raw"))
            let service = try ServiceUnderTest.start(
                in: dir, name: name, realtime: realtime, jarvis: jarvis, mic: mic,
                speakerLink: "kitchen", realtimeSection: "idle_timeout_s = 20", mediaSection: media, snapcastSection: snapcast)
            let kitchen = Kitchen(
                realtime: realtime, jarvis: jarvis, service: service,
                question: try await SpeechSynthesis.speak(NonLinearEchoBargeInTests.question, rate: 16_000, directory: dir.path, name: "question"),
                interruption: try await SpeechSynthesis.speak(
                    NonLinearEchoBargeInTests.interruption, rate: 16_000, directory: dir.path,
                    name: "interruption"))
            do {
                try #require(try await service.ctlWhenReady("status"), "log:\n\(service.logText)")
                try await whileIdle(service)
                try #require(try await service.ctl("tap").status == 0, "log:\n\(service.logText)")
                try #require(await service.waitForState("listening"), "log:\n\(service.logText)")
            } catch {
                _ = service.process.signal(SIGKILL)
                throw error
            }
            return kitchen
        }

        /// The question, and its answer played alone to its end (the canceller converges on the room).
        func answerPlayedAlone() async throws {
            try service.speak(question + silence)
            try #require(await service.waitForState("ai_speaking"), "log:\n\(service.logText)")
            try #require(await service.waitForState("listening"), "log:\n\(service.logText)")
        }

        func stop() async {
            await service.stop()
            await realtime.shutdown()
            await jarvis.stop()
        }
    }

    func occurrences(of needle: String, in text: String) -> Int {
        text.split(separator: "\n").filter { $0.contains(needle) }.count
    }

    /// Where each word of `samples` begins, in ms: a 10 ms block above -45 dBFS after at least 50 ms below.
    static func wordOnsetsMilliseconds(_ samples: [Int16], rate: Int) -> [Int] {
        let block = rate / 100
        var onsets: [Int] = []
        var quietBlocks = 5
        var start = 0
        while start + block <= samples.count {
            let energy = samples[start..<(start + block)].reduce(0.0) { $0 + Double($1) * Double($1) }
            if energy / Double(block) > 184 * 184 {
                if quietBlocks >= 5 { onsets.append(start / block * 10) }
                quietBlocks = 0
            } else {
                quietBlocks += 1
            }
            start += block
        }
        return onsets
    }

    /// From frame `from` of the speaker's output (48 kHz stereo), the first 10 ms block of the left channel
    /// above -50 dBFS, in ms from the start of the output.
    static func soundStartMilliseconds(inStereo48k samples: [Int16], from: Int) -> Int? {
        stride(from: from, through: samples.count / 2 - 480, by: 480).first { !isSilentBlock(samples, at: $0) }.map { $0 / 48 }
    }

    /// From frame `from` of the speaker's output (48 kHz stereo), where the sound stops for at least
    /// 250 ms (10 ms blocks of the left channel below -50 dBFS), in ms from the start of the output.
    static func silenceStartMilliseconds(inStereo48k samples: [Int16], from: Int) -> Int? {
        let block = 480
        var frame = from
        var silentSince: Int?
        while (frame + block) * 2 <= samples.count {
            if isSilentBlock(samples, at: frame) {
                if silentSince == nil { silentSince = frame }
                if let since = silentSince, frame + block - since >= 48 * 250 { return since / 48 }
            } else {
                silentSince = nil
            }
            frame += block
        }
        return nil
    }

    /// Whether the 10 ms block of the left channel from frame `frame` (48 kHz stereo) is below -50 dBFS.
    static func isSilentBlock(_ samples: [Int16], at frame: Int) -> Bool {
        var energy = 0.0
        for f in frame..<(frame + 480) { energy += Double(samples[2 * f]) * Double(samples[2 * f]) }
        return energy / 480 < 104 * 104
    }
}
