import Basics
import TestProcess
import TestSupport
import Testing

@testable import Realtime

/// `RealtimeSpeechSynthesizer` against the stand-in: the text comes back as the voice's PCM over a
/// connection of its own (session.update, then one out-of-band response.create, nothing else), and every
/// way it can fail is a typed error within the timeout.
@Suite(.timeLimit(.minutes(2))) struct RealtimeSpeechSynthesizerTests {
    static let text = "Dinner is ready, come to the kitchen."

    static func configuration(
        _ standIn: RealtimeStandIn, model: String = RealtimeModels.defaultID, apiKey: String? = nil, maxAudio: Duration = .seconds(60)
    ) -> RealtimeSpeechConfiguration {
        RealtimeSpeechConfiguration(
            connection: RealtimeConnectionConfiguration(
                url: standIn.url, model: model, apiKey: RealtimeAPIKey(apiKey ?? standIn.script.apiKey), connectTimeout: .seconds(10),
                closeTimeout: .milliseconds(500)),
            voice: "cedar", reasoningEffort: .low, maxAudio: maxAudio)
    }

    static func speak(
        _ configuration: RealtimeSpeechConfiguration, text: String = text, timeout: Duration = hangTimeout
    ) async -> Result<[Int16], RealtimeSpeechError> {
        do {
            return .success(try await RealtimeSpeechSynthesizer.speak(text, configuration: configuration, timeout: timeout))
        } catch {
            return .failure(error)
        }
    }

    static func withStandIn(_ script: RealtimeStandInScript = .init(), _ body: (RealtimeStandIn) async throws -> Void) async throws {
        let standIn = try await RealtimeStandIn.start(script: script)
        do {
            try await body(standIn)
        } catch {
            await standIn.shutdown()
            throw error
        }
        await standIn.shutdown()
    }

    // MARK: - The audio

    @Test func theScriptedAudioComesBackWhole() async throws {
        var script = RealtimeStandInScript()
        script.answerAudio = SpeechFixture.tone(milliseconds: 1_510)
        try await Self.withStandIn(script) { standIn in
            let samples = try await Self.speak(Self.configuration(standIn)).get()
            #expect(samples.count == 1_510 * 24)
            #expect(samples == script.answerAudio)
            #expect(standIn.conversationItems.isEmpty, "an out-of-band reading adds nothing to the conversation")
        }
    }

    /// Without scripted audio the stand-in speaks a tone of 60 ms per character.
    @Test func aToneAsLongAsTheText() async throws {
        try await Self.withStandIn { standIn in
            let samples = try await Self.speak(Self.configuration(standIn), text: "  \(Self.text)\n").get()
            #expect(samples.count == Self.text.count * 60 * 24)
        }
    }

    /// Exactly two client events, both valid GA shapes: the session (voice, 24 kHz out, no turn detection)
    /// and the out-of-band response whose only input is the text.
    @Test func sendsTheSessionAndOneOutOfBandResponse() async throws {
        try await Self.withStandIn { standIn in
            _ = try await Self.speak(Self.configuration(standIn)).get()
            #expect(standIn.rejections.isEmpty)
            #expect(standIn.clientEvents.map(\.type) == ["session.update", "response.create"])
            #expect(standIn.requestedModels == [RealtimeModels.defaultID])
            let session = try #require(standIn.clientEvents.first?.json["session"])
            #expect(session["type"]?.stringValue == "realtime")
            #expect(session["output_modalities"] == ["audio"])
            #expect(session["audio"]?["output"]?["voice"]?.stringValue == "cedar")
            #expect(session["audio"]?["output"]?["format"] == ["type": "audio/pcm", "rate": 24000])
            #expect(session["audio"]?["input"]?["turn_detection"] == .null)
            #expect(session["tools"] == nil)
            #expect(session["reasoning"]?["effort"]?.stringValue == "low")
            let create = try #require(standIn.clientEvents.last?.json)
            #expect(create["event_id"]?.stringValue == "speak")
            let response = try #require(create["response"])
            #expect(response["conversation"]?.stringValue == "none")
            #expect(response["output_modalities"] == ["audio"])
            #expect(response["tool_choice"]?.stringValue == "none")
            #expect(response["instructions"]?.stringValue == RealtimeSpeechRequest.instructions)
            #expect(
                response["input"] == [["type": "message", "role": "system", "content": [["type": "input_text", "text": .string(Self.text)]]]])
        }
    }

    @Test func theAudioIsCapped() async throws {
        var script = RealtimeStandInScript()
        script.answerAudio = SpeechFixture.tone(milliseconds: 2_000)
        try await Self.withStandIn(script) { standIn in
            let result = await Self.speak(Self.configuration(standIn, maxAudio: .seconds(1)))
            #expect(result.failure == .audioTooLong(limit: .seconds(1)))
        }
    }

    @Test func theTextIsCheckedBeforeDialing() async throws {
        try await Self.withStandIn { standIn in
            #expect(await Self.speak(Self.configuration(standIn), text: " \n ").failure == .emptyText)
            let long = String(repeating: "a", count: 801)
            #expect(await Self.speak(Self.configuration(standIn), text: long).failure == .textTooLong(characters: 801, limit: 800))
            #expect(standIn.upgradeAttempts == 0)
        }
    }

    // MARK: - Failures

    @Test func aRefusedUpgradeIsTyped() async throws {
        var script = RealtimeStandInScript()
        script.upgradeRefusal = .rateLimited(times: 5, retryAfterSeconds: 7)
        try await Self.withStandIn(script) { standIn in
            let failure = try #require(await Self.speak(Self.configuration(standIn)).failure)
            #expect(failure == .refusedUpgrade(RealtimeDisconnect(kind: .transient, reason: .rateLimited(retryAfterSeconds: 7))))
            #expect(standIn.upgradeAttempts == 1, "one dial, no retries")
        }
    }

    @Test func aRetiredModelIsTyped() async throws {
        try await Self.withStandIn { standIn in
            let failure = try #require(await Self.speak(Self.configuration(standIn, model: "gpt-realtime")).failure)
            #expect(failure == .modelNotServed(model: "gpt-realtime"))
            #expect(failure.description.contains("set [realtime] model"))
        }
    }

    /// Refused at the upgrade (401) or upgraded and told by an `error` event: the same typed error, and
    /// the key is in neither.
    @Test(arguments: [RealtimeStandInScript.AuthFailure.http401, .errorEventThenClose])
    func aWrongKeyIsTypedWithoutTheKey(_ authFailure: RealtimeStandInScript.AuthFailure) async throws {
        var script = RealtimeStandInScript()
        script.authFailure = authFailure
        try await Self.withStandIn(script) { standIn in
            let failure = try #require(await Self.speak(Self.configuration(standIn, apiKey: "sk-wrong-secret-4242")).failure)
            #expect(failure == .invalidAPIKey(source: "the configured API key"))
            #expect(!"\(failure)".contains("4242") && !String(reflecting: failure).contains("4242"))
        }
    }

    @Test func anErrorEventIsTyped() async throws {
        var script = RealtimeStandInScript()
        script.answerAudio = SpeechFixture.tone(milliseconds: 5_000)
        script.deltaPause = .milliseconds(500)
        try await Self.withStandIn(script) { standIn in
            async let result = Self.speak(Self.configuration(standIn))
            #expect(await standIn.waitForClientEvent("response.create"))
            await standIn.perform(.error(code: "server_error", message: "The server had an error while processing your request."))
            #expect(await result.failure == .serverError(code: "server_error", param: nil))
        }
    }

    @Test func aSlowReadingTimesOut() async throws {
        var script = RealtimeStandInScript()
        script.answerAudio = SpeechFixture.tone(milliseconds: 5_000)
        script.deltaPause = .seconds(2)
        try await Self.withStandIn(script) { standIn in
            let started = ContinuousClock.now
            let result = await Self.speak(Self.configuration(standIn), timeout: .milliseconds(700))
            #expect(result.failure == .timedOut(after: .milliseconds(700)))
            // A hang guard, not a speed test: on a loaded 2-core machine the stand-in answers late.
            #expect(started.duration(to: .now) < .seconds(60))
        }
    }

    @Test func aSocketClosedMidResponseIsTyped() async throws {
        var script = RealtimeStandInScript()
        script.answerAudio = SpeechFixture.tone(milliseconds: 2_000)
        script.dropConnectionAfterDeltas = 2
        try await Self.withStandIn(script) { standIn in
            let failure = try #require(await Self.speak(Self.configuration(standIn)).failure)
            #expect(failure == .connectionLost(RealtimeDisconnect(kind: .transient, reason: .connectionLost)))
            #expect(standIn.sentAudioDeltas == 2)
        }
    }

    @Test func anUnreachableAPIIsTyped() async throws {
        let standIn = try await RealtimeStandIn.start()
        await standIn.shutdown()
        let failure = try #require(await Self.speak(Self.configuration(standIn)).failure)
        guard case .unreachable(let why) = failure else {
            Issue.record("not unreachable: \(failure)")
            return
        }
        #expect(why.reason == .unreachable(host: "127.0.0.1", .connectionRefused))
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
