import ALSATestbed
import Basics
import Glibc
import Realtime
import Synchronization
import TestProcess
import TestSupport
import Testing

/// Push-to-talk through the real `jarvis-voice run`: `ctl press`, the spoken question reaches the
/// Realtime stand-in while the button is held (server VAD off: no turn is taken until the release),
/// `ctl release` commits and asks for the answer, the stand-in's answer (a 1.5 kHz tone) comes out of
/// the paced speaker, and the polled `ctl status` goes through the contract's states back to `idle`.
@Suite(.timeLimit(.minutes(3))) struct PushToTalkTests {
    static let question = "what is on my calendar today"
    let dir = TemporaryDirectory()

    @Test func pressAndReleaseTakeOneSpokenTurn() async throws {
        let (realtime, jarvis) = try await SpokenTurnTests.standIns()

        let question = try await SpokenTurnTests.micInput(leadMilliseconds: 100, in: dir)
        let service = try ServiceUnderTest.start(in: dir, name: "ptt", realtime: realtime, jarvis: jarvis)
        defer { _ = service.process.signal(SIGKILL) }
        // Press, then speak: the question is said while the button is held however late a loaded machine
        // delivers the press (with the question at a fixed time after the mic opened, a press two more busy
        // loops delayed came after it).
        try #require(try await service.ctlWhenReady("press"), "log:\n\(service.logText)")
        try service.speak(question)

        // `ctl status`, polled for the rest of the test.
        let states = Mutex<[String]>([])
        let poller = Task {
            while !Task.isCancelled {
                if let result = try? await service.ctl("status"),
                    result.status == 0, let state = JSONValue.parse(result.stdout)?["state"]?.stringValue
                {
                    states.withLock { if $0.last != state { $0.append(state) } }
                }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        defer { poller.cancel() }

        // Held: the whole question streams to the server, and nothing ends the turn by itself.
        #expect(await realtime.waitUntil { Self.questionEnded(in: realtime) }, "log:\n\(service.logText)")
        let beforeRelease = realtime.clientEvents
        let update = beforeRelease.last { $0.type == "session.update" }
        #expect(update?.json["session"]?["audio"]?["input"]?["turn_detection"] == .null, "push-to-talk turns server VAD off")
        #expect(!beforeRelease.contains { $0.type == "input_audio_buffer.commit" || $0.type == "response.create" })
        // Polled over `ctl`, which a loaded machine can slow to seconds a call: wait for the poll to see it.
        #expect(await waitUntil { states.withLock { $0.contains("user_speaking") } }, "states \(states.withLock { $0 })")

        #expect(try await service.ctl("release").status == 0)
        #expect(await realtime.waitForClientEvent("input_audio_buffer.commit"), "log:\n\(service.logText)")
        #expect(await realtime.waitForClientEvent("conversation.item.create"), "log:\n\(service.logText)")
        #expect(jarvis.recordedRequests.count == 1)

        let heard = await service.heard(SpokenTurnTests.answerHz, atLeast: 600, timeout: .seconds(20))
        #expect(heard >= 600, "heard \(heard) ms of the answer; log:\n\(service.logText)")

        let idle = await realtime.waitUntil {
            let seen = states.withLock { $0 }
            return seen.contains("ai_speaking") && seen.last == "idle"
        }
        poller.cancel()
        await poller.value
        let seen = states.withLock { $0 }
        #expect(idle, "polled states \(seen); log:\n\(service.logText)")
        #expect(Self.isSubsequence(["user_speaking", "ai_speaking", "idle"], of: seen), "polled states \(seen)")
        let text = service.logText
        #expect(text.contains("state: user_speaking -> processing"), "the release commits the turn; log:\n\(text)")
        #expect(text.contains("-> ai_speaking"))
        #expect(realtime.rejections.isEmpty, "\(realtime.rejections)")

        await service.stop()
        await realtime.shutdown()
        await jarvis.stop()
    }

    /// The uplink so far holds at least 500 ms of speech followed by 700 ms of quiet.
    static func questionEnded(in realtime: RealtimeStandIn) -> Bool {
        var samples: [Int16] = []
        for event in realtime.clientEvents(ofType: "input_audio_buffer.append") {
            samples += event.json["audio"]?.stringValue.flatMap(Base64.decodeSamples) ?? []
        }
        let window = 480  // 20 ms at 24 kHz
        var loudWindows = 0
        var quietAfterSpeech = 0
        var start = 0
        while start + window <= samples.count {
            var sum = 0.0
            for sample in samples[start..<(start + window)] { sum += Double(sample) * Double(sample) }
            if (sum / Double(window)).squareRoot() >= 650 {
                loudWindows += 1
                quietAfterSpeech = 0
            } else if loudWindows > 0 {
                quietAfterSpeech += 1
            }
            start += window
        }
        return loudWindows >= 25 && quietAfterSpeech >= 35
    }

    static func isSubsequence(_ wanted: [String], of seen: [String]) -> Bool {
        var rest = wanted[...]
        for state in seen where state == rest.first { rest = rest.dropFirst() }
        return rest.isEmpty
    }
}
