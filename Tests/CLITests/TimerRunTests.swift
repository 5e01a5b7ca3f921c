import ALSATestbed
import Glibc
import TestProcess
import TestSupport
import Testing

extension ServicesOneAtATime {
    /// Kitchen timers through `jarvis-voice run` on the paced speaker: set by the model's `set_timer` for a
    /// spoken request or by `ctl timer add`, they ring on the box on time with media ducked, a tap or the cap
    /// silences them, and a restart keeps them (a step of the wall clock moving an alarm but not a timer:
    /// `KitchenTimersTests`, on the clocks it steps).
    @Suite(.timeLimit(.minutes(3))) struct TimerRunTests {
        /// The timer sound's first note (C6).
        static let chimeHz = 1_046.5
        /// The stand-in's voice: well apart from the timer sound's notes.
        static let voiceHz = 600.0
        let dir = TemporaryDirectory()

        static func standIns(calling call: ScriptedFunctionCall? = nil) async throws -> (RealtimeStandIn, TermLLMStandIn) {
            var script = RealtimeStandInScript()
            script.answerAudio = (0..<(24 * 400)).map { Int16(8_000 * sin(Double($0) * 2 * .pi * voiceHz / 24_000)) }
            if let call { script.functionCalls = [call] }
            return (try await RealtimeStandIn.start(script: script), try await TermLLMStandIn.start())
        }

        /// The first frame (48 kHz) from `from` on where a 10 ms block of the left channel is mostly `hz`.
        static func onset(of hz: Double, in samples: [Int16], from: Int) -> Int? {
            let block = 480
            let coefficient = 2 * cos(2 * .pi * hz / 48_000)
            var frame = from
            while (frame + block) * 2 <= samples.count {
                var s1 = 0.0, s2 = 0.0, energy = 0.0
                for f in frame..<(frame + block) {
                    let x = Double(samples[2 * f])
                    let s = x + coefficient * s1 - s2
                    (s2, s1) = (s1, s)
                    energy += x * x
                }
                let power = (s1 * s1 + s2 * s2 - coefficient * s1 * s2) * 2 / Double(block)
                if energy / Double(block) > 100_000 && power / energy > 0.5 { return frame }
                frame += block
            }
            return nil
        }

        @Test func aSpokenRequestSetsATimerThatRingsDuckedUntilATapStopsIt() async throws {
            let (realtime, jarvis) = try await Self.standIns(
                calling: ScriptedFunctionCall(name: "set_timer", arguments: #"{"seconds":4,"label":"pasta"}"#, callID: "call_timer_1"))
            let service = try ServiceUnderTest.start(
                in: dir, name: "spoken", realtime: realtime, jarvis: jarvis, realtimeSection: "idle_timeout_s = 3")
            defer { _ = service.process.signal(SIGKILL) }
            try #require(try await service.ctlWhenReady("tap"), "log:\n\(service.logText)")
            try service.speak(try await SpokenTurnTests.micInput(leadMilliseconds: 100, in: dir))

            #expect(await realtime.waitForClientEvent("conversation.item.create"), "log:\n\(service.logText)")
            let output = try #require(realtime.functionCallOutputs.first?.output, "log:\n\(service.logText)")
            #expect(output.contains(#""label":"pasta""#), "\(output)")
            #expect(jarvis.recordedRequests.isEmpty, "a timer never goes to Jarvis")
            let ringing = try await service.waitForStatus { status in
                guard case .array(let timers)? = status["timers"] else { return false }
                return timers.contains { $0["state"]?.stringValue == "ringing" && $0["label"]?.stringValue == "pasta" }
            }
            #expect(ringing?["media"]?["ducked"] == .bool(true), "media ducked while it rings: \(String(describing: ringing))")
            #expect(await service.heard(Self.chimeHz, atLeast: 40) >= 40, "the timer sound; log:\n\(service.logText)")

            #expect(try await service.ctl("tap").status == 0)
            let stopped = try await service.waitForStatus { $0["timers"] == .array([]) }
            #expect(stopped != nil, "log:\n\(service.logText)")
            #expect(try await service.waitForStatus { $0["media"]?["ducked"] == .bool(false) } != nil, "media back after the ringing")
            #expect(service.logText.contains("stopped ringing the pasta timer: a tap"), "log:\n\(service.logText)")

            await service.stop()
            await realtime.shutdown()
            await jarvis.stop()
        }

        /// `ctl timer add 3s` rings 3 s later on the speaker's own timeline, within 50 ms (plus the speaker's
        /// 40 ms of buffer and how long `ctl` took); nobody stops it, so the cap does.
        @Test func aTimerRingsOnTimeAndTheCapSilencesIt() async throws {
            let (realtime, jarvis) = try await Self.standIns()
            let service = try ServiceUnderTest.start(in: dir, name: "ontime", realtime: realtime, jarvis: jarvis, timersSection: ["ring_cap_s = 5"])
            defer { _ = service.process.signal(SIGKILL) }
            try #require(try await service.ctlWhenReady("status"), "log:\n\(service.logText)")
            try await service.playOn(milliseconds: 200)

            let before = service.playedFrames
            let added = try await service.ctl("timer", "add", "3s", "tea")
            let after = service.playedFrames
            #expect(added.stdout == "timer 1 (tea) set for 0:03\n", "\(added)")
            let list = try await service.ctl("timer", "list")
            #expect(list.stdout.hasPrefix("timer 1 (tea): 0:0"), "\(list)")

            try await service.playOn(milliseconds: 4_000)
            let played = try TestFiles.readSamples(service.played)
            let onset = try #require(Self.onset(of: Self.chimeHz, in: played, from: before), "no timer sound; log:\n\(service.logText)")
            let earliest = before + 48 * (3_000 - 50), latest = after + 48 * (3_000 + 50 + 40)
            #expect(
                onset >= earliest && onset <= latest,
                "rang \((onset - before) / 48) ms after the add began (ctl took \((after - before) / 48) ms)")
            if let voice = Self.onset(of: Self.voiceHz, in: played, from: before) {
                #expect(voice >= onset + 48 * 370, "the voice waits for the timer sound: it began \((voice - onset) / 48) ms after it")
            }
            print("timer: rang \((onset - before) / 48) ms after `ctl timer add 3s` began (ctl took \((after - before) / 48) ms)")

            #expect(try await service.waitForStatus { $0["timers"] == .array([]) } != nil, "the cap silenced it; log:\n\(service.logText)")
            #expect(service.logText.contains("stopped ringing the tea timer: it rang for 5 s"), "log:\n\(service.logText)")
            await service.stop()
            await realtime.shutdown()
            await jarvis.stop()
        }

        /// A restart keeps the timers and alarms, counting on from where they were. (A step of the wall clock
        /// moving an alarm but not a timer: `KitchenTimersTests`, on clocks the test steps.)
        @Test func aRestartKeepsTheTimersAndAlarms() async throws {
            let (realtime, jarvis) = try await Self.standIns()
            let first = try ServiceUnderTest.start(in: dir, name: "first", realtime: realtime, jarvis: jarvis)
            defer { _ = first.process.signal(SIGKILL) }
            try #require(try await first.ctlWhenReady("status"), "log:\n\(first.logText)")
            #expect(try await first.ctl("timer", "add", "2h", "roast").status == 0)
            #expect(try await first.ctl("timer", "add", "8s", "tea").status == 0)
            var now = time(nil)
            var local = tm()
            localtime_r(&now, &local)
            func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
            let alarm = try await first.ctl("timer", "add", "\(two((local.tm_hour + 3) % 24)):\(two(local.tm_min))", "wake")
            #expect(alarm.stdout.hasPrefix("alarm 3 (wake) set for "), "\(alarm)")
            await first.stop()

            let second = try ServiceUnderTest.start(in: dir, name: "second", realtime: realtime, jarvis: jarvis)
            defer { _ = second.process.signal(SIGKILL) }
            try #require(try await second.ctlWhenReady("status"), "log:\n\(second.logText)")
            let list = try await second.ctl("timer", "list").stdout
            #expect(list.contains("timer 1 (roast): 1:59:") && list.contains("alarm 3 (wake): 2:5"), "they survived the restart: \(list)")
            // The short one set before the restart rings after it, on the new process's speaker.
            let rang = try await second.waitForStatus { status in
                guard case .array(let timers)? = status["timers"] else { return false }
                return timers.contains { $0["label"] == .string("tea") && $0["state"] == .string("ringing") }
            }
            #expect(rang != nil, "log:\n\(second.logText)")
            #expect(await second.heard(Self.chimeHz, atLeast: 40) >= 40, "log:\n\(second.logText)")
            #expect(try await second.ctl("timer", "stop").stdout == "stopped timer 2 (tea)\n")
            let quiet = try await second.waitForStatus { status in
                guard case .array(let timers)? = status["timers"] else { return false }
                return timers.allSatisfy { $0["state"] == .string("running") }
            }
            guard case .array(let timers)? = quiet?["timers"] else {
                Issue.record("no timers in status")
                return
            }
            #expect(timers.map { $0["state"]?.stringValue } == ["running", "running"] && timers.first?["label"] == .string("roast"))
            #expect(try await second.ctl("timer", "cancel", "wake").stdout == "cancelled alarm 3 (wake)\n")
            await second.stop()
            await realtime.shutdown()
            await jarvis.stop()
        }
    }
}
