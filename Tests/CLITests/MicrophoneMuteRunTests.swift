import ALSATestbed
import Glibc
import TestProcess
import TestSupport
import Testing

extension ServicesOneAtATime {
    /// The microphone privacy mute through `jarvis-voice run`: a minute of speech into the paced mic while
    /// muted, with taps in it, sends the Realtime stand-in nothing at all; the mute survives a restart; turned
    /// off, a spoken question is answered as usual.
    @Suite(.timeLimit(.minutes(4))) struct MicrophoneMuteRunTests {
        let dir = TemporaryDirectory()

        @Test func aMinuteOfSpeechWhileMutedSendsNothingAndTheMuteSurvivesARestart() async throws {
            var script = RealtimeStandInScript()
            script.answerAudio = (0..<(24 * 800)).map { Int16(8_000 * sin(Double($0) * 2 * .pi * SpokenTurnTests.answerHz / 24_000)) }
            let realtime = try await RealtimeStandIn.start(script: script)
            let jarvis = try await TermLLMStandIn.start()
            let first = try ServiceUnderTest.start(in: dir, name: "muted", realtime: realtime, jarvis: jarvis, realtimeSection: "idle_timeout_s = 10")
            defer { _ = first.process.signal(SIGKILL) }
            try #require(try await first.ctlWhenReady("status"), "log:\n\(first.logText)")

            let muted = try await first.ctl("mute", "on")
            #expect(muted.status == 0 && muted.stdout == "microphone off\n", "\(muted)")
            #expect(try await first.waitForStatus { $0["muted"] == .bool(true) } != nil)
            #expect(try await first.ctl("mute", "maybe").status == 64, "a bad argument is a usage error")

            // A minute of speech, the question again and again, and a tap every 20 s (each would open the mic).
            let question = try await SpokenTurnTests.micInput(leadMilliseconds: 0, in: dir)
            var minute: [Int16] = []
            while minute.count < 60 * 16_000 { minute += question }
            try first.speak(minute)
            for _ in 0..<3 {
                #expect(try await first.ctl("tap").status == 0)
                try await first.playOn(milliseconds: 20_000)
            }
            #expect(realtime.clientEvents(ofType: "input_audio_buffer.append").isEmpty, "no uplink audio while muted")
            #expect(realtime.clientEvents.allSatisfy { $0.type != "input_audio_buffer.commit" })
            let told = realtime.clientEvents(ofType: "conversation.item.create").compactMap { event -> String? in
                guard case .array(let content)? = event.json["item"]?["content"] else { return nil }
                return content.first?["text"]?.stringValue
            }
            #expect(told.contains("The microphone is off."), "a tap says the microphone is off: \(told)")
            #expect(jarvis.recordedRequests.isEmpty, "nothing was asked")
            await first.stop()

            let second = try ServiceUnderTest.start(
                in: dir, name: "restarted", realtime: realtime, jarvis: jarvis, realtimeSection: "idle_timeout_s = 10")
            defer { _ = second.process.signal(SIGKILL) }
            let status = try await second.waitForStatus { $0["state"]?.stringValue == "idle" }
            #expect(status?["muted"] == .bool(true), "still muted after the restart: \(String(describing: status))")
            #expect(second.logText.contains("the microphone is muted (as it was left)"), "log:\n\(second.logText)")

            #expect(try await second.ctl("mute", "off").stdout == "microphone on\n")
            #expect(try await second.waitForStatus { $0["muted"] == .bool(false) } != nil)
            try #require(try await second.ctl("tap").status == 0)
            try second.speak(try await SpokenTurnTests.micInput(leadMilliseconds: 100, in: dir))
            #expect(await realtime.waitForClientEvent("input_audio_buffer.append"), "listening again; log:\n\(second.logText)")
            #expect(
                await realtime.waitForClientEvent("conversation.item.create", count: told.count + 1),
                "the answer's tool output; log:\n\(second.logText)")
            let heard = await second.heard(SpokenTurnTests.answerHz, atLeast: 600)
            #expect(heard >= 600, "the answer after unmuting: \(heard) ms; log:\n\(second.logText)")

            await second.stop()
            await realtime.shutdown()
            await jarvis.stop()
        }
    }
}
