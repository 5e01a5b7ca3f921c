import AudioCore
import Basics
import Glibc
import NIOCore
import TestProcess
import TestSupport
import Testing

@testable import Realtime

@Suite struct RealtimeSessionIntegrationTests {
    static let answer: [Int16] =
        SpeechFixture.speech("You have nothing on your calendar today.") ?? SpeechFixture.tone(milliseconds: 900, frequency: 330)

    static func script() -> RealtimeStandInScript {
        var script = RealtimeStandInScript()
        script.answerAudio = answer
        script.samplesPerDelta = 4800
        return script
    }

    static func isAudioDelta(_ event: ServerEvent) -> Bool {
        if case .outputAudioDelta = event { return true }
        return false
    }

    static let settings = RealtimeSessionSettings(handsFreeDetection: .server(threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 400))

    @Test func connectsAndSessionUpdateIsAccepted() async throws {
        try await SessionHarness.run(script: Self.script()) { harness in
            #expect(await harness.waitConnected())
            #expect(await harness.waitForServer { if case .sessionCreated = $0 { true } else { false } } != nil)
            harness.session.send(Self.settings.sessionUpdate(tools: [SessionHarness.askJarvis], turnTaking: .handsFree), eventID: "evt_cfg_1")
            let updated = await harness.waitForServer { if case .sessionUpdated = $0 { true } else { false } }
            guard case .sessionUpdated(let info)? = updated else {
                Issue.record("no session.updated; rejections: \(harness.standIn.rejections)")
                return
            }
            #expect(info.turnDetectionType == "server_vad")
            #expect(info.voice == "marin")
            #expect(harness.standIn.rejections.isEmpty)
            #expect(harness.standIn.authorizationFailures == 0)
            let recorded = harness.standIn.clientEvents(ofType: "session.update")
            #expect(recorded.count == 1)
            #expect(recorded.first?.json["session"]?["type"]?.stringValue == "realtime")
            #expect(harness.session.isConnected)
        }
    }

    @Test(arguments: ["server_vad", "semantic_vad"])
    func speechMakesVADEventsAFunctionCallAndTheAnswerAudioArrivesByteForByte(_ vad: String) async throws {
        let speech = SpeechFixture.speech("What is on my calendar today?") ?? SpeechFixture.tone(milliseconds: 800)
        let settings = vad == "server_vad" ? Self.settings : RealtimeSessionSettings(handsFreeDetection: .semantic(eagerness: .high))
        try await SessionHarness.run(script: Self.script()) { harness in
            #expect(await harness.waitConnected())
            harness.session.send(settings.sessionUpdate(tools: [SessionHarness.askJarvis], turnTaking: .handsFree))
            #expect(await harness.waitForServer { if case .sessionUpdated = $0 { true } else { false } } != nil)

            let ring = SPSCRing<Int16>(capacity: 24_000 * 10, zero: 0)
            let input = SpeechFixture.silence(milliseconds: 300) + speech + SpeechFixture.silence(milliseconds: 900)
            input.withUnsafeBufferPointer { _ = ring.write($0) }
            let pump = UplinkPump(ring: ring, chunkSamples: 720)
            let session = harness.session
            pump.pump(flush: true) { session.send(text: $0) }
            #expect(ring.availableToRead == 0)
            // create_response is off (the appliance answers only the turns it accepts): ask for the response.
            #expect(await harness.waitForServer { if case .speechStopped = $0 { true } else { false } } != nil)
            session.send(.responseCreate(nil))

            let call = await harness.waitForServer { if case .functionCallArgumentsDone = $0 { true } else { false } }
            guard case .functionCallArgumentsDone(let functionCall)? = call else {
                Issue.record("no function call; server events: \(harness.serverEvents.map(\.type)); rejections: \(harness.standIn.rejections)")
                return
            }
            #expect(functionCall.name == "ask_jarvis")
            #expect(JSONValue.parse(functionCall.arguments)?["query"]?.stringValue == "what is on my calendar today")
            #expect(await harness.waitForServer { if case .responseDone = $0 { true } else { false } } != nil)
            let types = harness.serverEvents.map(\.type)
            let started = types.firstIndex(of: "input_audio_buffer.speech_started")
            let stopped = types.firstIndex(of: "input_audio_buffer.speech_stopped")
            let committed = types.firstIndex(of: "input_audio_buffer.committed")
            #expect(started != nil && stopped != nil && committed != nil)
            if let started, let stopped, let committed { #expect(started < stopped && stopped < committed) }
            if case .speechStarted(let startMs, _)? = harness.serverEvents.first(where: { $0.type == "input_audio_buffer.speech_started" }) {
                #expect((200...600).contains(startMs))
            }

            session.send(.conversationItemCreate(.functionCallOutput(callID: functionCall.callID, output: #"{"answer":"nothing today"}"#)))
            session.send(.responseCreate(nil))
            let done = await harness.waitForServer(count: 2) { if case .responseDone = $0 { true } else { false } }
            guard case .responseDone(let response)? = done else {
                Issue.record("no answer response.done; server events: \(harness.serverEvents.map(\.type)); rejections: \(harness.standIn.rejections)")
                return
            }
            #expect(response.status == "completed")
            #expect((response.usage?.outputAudio ?? 0) > 0)

            final class Sink: @unchecked Sendable { var samples: [Int16] = [] }
            let sink = Sink()
            var downlink = DownlinkAudio { _, samples in sink.samples += samples }
            for case .outputAudioDelta(let delta) in harness.serverEvents { downlink.handle(delta) }
            #expect(sink.samples.count == Self.answer.count)
            #expect(sink.samples == Self.answer)
            #expect(harness.standIn.rejections.isEmpty)
            #expect(harness.standIn.clientEvents(ofType: "input_audio_buffer.append").count == pump.framesSent)
        }
    }

    @Test func pushToTalkCommitCancelAndTruncateAreHonouredAndRecorded() async throws {
        var script = Self.script()
        script.deltaPause = .milliseconds(20)
        script.samplesPerDelta = 1200
        try await SessionHarness.run(script: script) { harness in
            #expect(await harness.waitConnected())
            let session = harness.session
            session.send(Self.settings.sessionUpdate(tools: [SessionHarness.askJarvis], turnTaking: .pushToTalk))
            #expect(await harness.waitForServer { if case .sessionUpdated(let info) = $0 { info.turnDetectionType == nil } else { false } } != nil)
            // 50 ms is below the 100 ms minimum: a benign error, the session stays up.
            session.send(.inputAudioBufferAppend(audio: Base64.encode(samples: SpeechFixture.tone(milliseconds: 50))))
            session.send(.inputAudioBufferCommit, eventID: "evt_commit_1")
            let empty = await harness.waitForServer { if case .error = $0 { true } else { false } }
            guard case .error(let error)? = empty else {
                Issue.record("no commit_empty error")
                return
            }
            #expect(error.code == "input_audio_buffer_commit_empty")
            #expect(error.eventID == "evt_commit_1")
            #expect(error.isBenign)
            session.send(.inputAudioBufferAppend(audio: Base64.encode(samples: SpeechFixture.tone(milliseconds: 300))))
            session.send(.inputAudioBufferCommit)
            #expect(await harness.waitForServer { if case .inputAudioBufferCommitted = $0 { true } else { false } } != nil)
            #expect(!harness.serverEvents.contains { $0.type == "input_audio_buffer.speech_started" })
            session.send(.responseCreate(nil))
            guard
                case .functionCallArgumentsDone(let call)? = await harness.waitForServer({
                    if case .functionCallArgumentsDone = $0 { true } else { false }
                })
            else {
                Issue.record("no function call")
                return
            }
            #expect(await harness.waitForServer { if case .responseDone = $0 { true } else { false } } != nil)
            session.send(.conversationItemCreate(.functionCallOutput(callID: call.callID, output: "nothing")))
            session.send(.responseCreate(nil))
            await harness.waitForServer(count: 2, Self.isAudioDelta)
            let deltas = harness.serverEvents.compactMap { event -> AudioDelta? in
                if case .outputAudioDelta(let delta) = event { return delta }
                return nil
            }
            guard let delta = deltas.first, deltas.count >= 2 else {
                Issue.record("no answer audio: \(harness.serverEvents.map(\.type))")
                return
            }
            // A second response.create while one is active: the real API's benign error.
            session.send(.responseCreate(nil), eventID: "evt_dup")
            session.send(.responseCancel(responseID: nil))
            let cancelled = await harness.waitForServer {
                if case .responseDone(let r) = $0 { r.status != "completed" || r.output.first?.type == "message" } else { false }
            }
            guard case .responseDone(let response)? = cancelled else {
                Issue.record("no cancelled response.done")
                return
            }
            #expect(response.status == "cancelled")
            #expect(response.statusReason == "client_cancelled")
            #expect(
                harness.serverEvents.contains {
                    if case .error(let e) = $0 { e.code == "conversation_already_has_active_response" && e.eventID == "evt_dup" } else { false }
                })
            session.send(.conversationItemTruncate(itemID: delta.itemID, contentIndex: 0, audioEndMs: 40))
            #expect(await harness.waitForServer { if case .conversationItemTruncated(_, _, let end) = $0 { end == 40 } else { false } } != nil)
            session.send(.responseCancel(responseID: nil))
            #expect(await harness.waitForServer { if case .error(let e) = $0 { e.code == "response_cancel_not_active" } else { false } } != nil)
            #expect(harness.standIn.clientEvents(ofType: "response.cancel").count == 2)
            #expect(harness.standIn.clientEvents(ofType: "conversation.item.truncate").first?.json["audio_end_ms"]?.numberValue == 40)
            #expect(harness.session.isConnected)
        }
    }

    @Test func malformedAndUnknownEventsAreCountedNotFatal() async throws {
        try await SessionHarness.run(script: Self.script()) { harness in
            #expect(await harness.waitConnected())
            #expect(await harness.waitForServer { if case .sessionCreated = $0 { true } else { false } } != nil)
            await harness.standIn.perform(.malformedJSON)
            await harness.standIn.perform(.unknownEvent(type: "mcp_list_tools.in_progress"))
            await harness.standIn.perform(.malformedEvent(type: "response.output_audio.delta"))
            await harness.standIn.perform(.unknownEvent(type: "output_audio_buffer.started"))
            await harness.standIn.perform(
                .error(code: "conversation_already_has_active_response", message: "Conversation already has an active response"))
            #expect(await harness.waitForServer { if case .error = $0 { true } else { false } } != nil)
            let undecodable = harness.events.filter { if case .undecodable = $0 { true } else { false } }
            #expect(undecodable.count == 2)
            let counters = try #require(harness.session.counters)
            #expect(counters.malformedCount == 2)
            #expect(counters.unknownCount == 2)
            #expect(counters.unknownEventCounts["mcp_list_tools.in_progress"] == 1)
            #expect(harness.session.isConnected)
            #expect(!harness.events.contains { if case .disconnected = $0 { true } else { false } })
        }
    }

    @Test func droppedConnectionMidAnswerIsTransientAndReconnects() async throws {
        var script = Self.script()
        script.dropConnectionAfterDeltas = 2
        script.samplesPerDelta = 1200
        try await SessionHarness.run(script: script) { harness in
            #expect(await harness.waitConnected())
            let session = harness.session
            session.send(Self.settings.sessionUpdate(tools: [SessionHarness.askJarvis], turnTaking: .pushToTalk))
            session.send(.responseCreate(nil))
            guard
                case .functionCallArgumentsDone(let call)? = await harness.waitForServer({
                    if case .functionCallArgumentsDone = $0 { true } else { false }
                })
            else {
                Issue.record("no function call")
                return
            }
            session.send(.conversationItemCreate(.functionCallOutput(callID: call.callID, output: "ok")))
            session.send(.responseCreate(nil))
            let disconnected = await harness.waitFor { if case .disconnected = $0 { true } else { false } }
            guard case .disconnected(let reason)? = disconnected else {
                Issue.record("no disconnect")
                return
            }
            #expect(reason.kind == .transient)
            #expect(reason.reason == .connectionLost)
            #expect(await harness.waitConnected(2))
            #expect(await harness.waitForStandInConnections(2) == 2)
            #expect(harness.standIn.sentAudioDeltas == 2)
            #expect(session.send(.inputAudioBufferClear))
        }
    }

    @Test(arguments: [RealtimeStandInScript.AuthFailure.http401, .errorEventThenClose])
    func wrongKeyIsFatalWithoutRetry(_ failure: RealtimeStandInScript.AuthFailure) async throws {
        var script = Self.script()
        script.authFailure = failure
        try await SessionHarness.run(script: script, apiKey: "sk-wrong-key") { harness in
            let stopped = await harness.waitFor { if case .stopped = $0 { true } else { false } }
            guard case .stopped(let reason)? = stopped else {
                Issue.record("session did not stop: \(harness.events)")
                return
            }
            #expect(reason.kind == .fatal)
            #expect(reason.reason == .invalidAPIKey(source: "the configured API key"))
            #expect(reason.description == "the Realtime API rejected the API key from the configured API key; put a valid OpenAI API key there")
            // Nothing is tried after the fatal end. (On a loaded machine NIO's client upgrader can lose the
            // stand-in's 401 head when the server closes at once: that first open fails as a transient
            // `connectFailed`, which the owner may retry; the 401 itself is never retried.)
            let failures = harness.events.filter { if case .disconnected = $0 { true } else { false } }.count
            #expect(harness.standIn.upgradeAttempts == 1 + failures, "\(harness.events)")
            #expect(harness.standIn.authorizationFailures == 1 + failures)
            #expect(!harness.session.isConnected)
            #expect(!harness.events.contains { "\($0)".contains("sk-wrong-key") })
        }
    }

    @Test func sessionExpiredIsReportedAsExpired() async throws {
        try await SessionHarness.run(script: Self.script()) { harness in
            #expect(await harness.waitConnected())
            #expect(await harness.waitForServer { if case .sessionCreated = $0 { true } else { false } } != nil)
            await harness.standIn.perform(.expireSession)
            guard case .disconnected(let reason)? = await harness.waitFor({ if case .disconnected = $0 { true } else { false } }) else {
                Issue.record("no disconnect")
                return
            }
            #expect(reason.kind == .expired)
            #expect(reason.reason == .sessionExpired)
            #expect(reason.closeCode == 1001)
            #expect(await harness.waitConnected(2))
            #expect(harness.serverEvents.contains { if case .error(let e) = $0 { e.code == "session_expired" } else { false } })
        }
    }

    @Test func wssAgainstAPlainSocketFailsTheTLSHandshakeAsTransient() async throws {
        let secure: (String) -> String = { $0.replacingPrefix("ws://", with: "wss://") }
        try await SessionHarness.run(script: Self.script(), maximumAttempts: 1, urlTransform: secure) { harness in
            guard case .stopped(let reason)? = await harness.waitFor({ if case .stopped = $0 { true } else { false } }) else {
                Issue.record("session did not stop: \(harness.events)")
                return
            }
            #expect(reason.kind == .transient)
            #expect(!reason.isUnreachable, "TCP connected; the TLS handshake failed")
            if case .connectFailed(let detail) = reason.reason { #expect(!detail.isEmpty) } else { Issue.record("not a connect failure: \(reason)") }
        }
    }

    @Test func unansweredPingsMeanADeadConnectionAndAReconnect() async throws {
        var script = Self.script()
        script.answerPings = false
        // The first connection never answers, so any pong timeout catches it; a generous one keeps the
        // answering second connection up even when the suites share two busy cores (1 s was not: a
        // starved second connection missed its pong and a third one was counted; 3 s was not either
        // with two more busy loops on the two cores).
        try await SessionHarness.run(script: script, pingInterval: .milliseconds(100), pongTimeout: .seconds(8)) { harness in
            #expect(await harness.waitConnected())
            guard case .disconnected(let reason)? = await harness.waitFor({ if case .disconnected = $0 { true } else { false } }) else {
                Issue.record("no ping timeout")
                return
            }
            #expect(reason.reason == .pingTimeout)
            #expect(reason.kind == .transient)
            #expect(await harness.waitConnected(2))
            // Connection 2 answers pings: it stays up across several ping periods (the stand-in counts them).
            let answered = harness.standIn.answeredPings
            #expect(await waitUntil { harness.standIn.answeredPings >= answered + 4 })
            #expect(harness.session.isConnected)
            #expect(await harness.waitForStandInConnections(2) == 2)
        }
    }

    @Test func betaShapedSessionUpdateIsRejectedWithClose4000AndStops() async throws {
        try await SessionHarness.run(script: Self.script()) { harness in
            #expect(await harness.waitConnected())
            harness.session.send(
                text: #"{"type":"session.update","session":{"modalities":["audio","text"],"voice":"alloy","input_audio_format":"pcm16"}}"#)
            guard case .stopped(let reason)? = await harness.waitFor({ if case .stopped = $0 { true } else { false } }) else {
                Issue.record("session did not stop")
                return
            }
            #expect(reason.reason == .betaShapeRejected)
            #expect(harness.standIn.rejections.contains { $0.contains("beta") })
            #expect(harness.standIn.connectionCount == 1)
        }
    }
}

@Suite(.timeLimit(.minutes(3))) struct RealtimeConnectionFailureTests {
    /// Nothing listens on the port: the open fails at once as unreachable (connection refused), a typed
    /// value with one plain sentence, not the network library's words.
    @Test func aClosedPortIsUnreachableConnectionRefused() async throws {
        let closed = try ReservedPort.fresh()
        defer { withExtendedLifetime(closed) {} }  // held, not listening: refused until the test ends
        let url = "ws://127.0.0.1:\(closed.port)/v1/realtime"
        let started = ContinuousClock.now
        do {
            _ = try await RealtimeConnection.open(
                configuration: RealtimeConnectionConfiguration(
                    url: url, apiKey: RealtimeAPIKey("sk-test"), connectTimeout: .seconds(5)))
            Issue.record("connected to a closed port")
        } catch {
            #expect(error.kind == .transient)
            #expect(error.reason == .unreachable(host: "127.0.0.1", .connectionRefused))
            #expect(error.description == "cannot reach the Realtime API at 127.0.0.1: connection refused; check the network")
        }
        #expect(started.duration(to: .now) < .seconds(5))
    }

    @Test func connectErrorsAreClassifiedByTypeAndErrno() {
        #expect(
            WebSocketDialer.classifyConnect(IOError(errnoCode: ECONNREFUSED, reason: "connect"), host: "h").reason
                == .unreachable(host: "h", .connectionRefused))
        #expect(
            WebSocketDialer.classifyConnect(IOError(errnoCode: ENETUNREACH, reason: "connect"), host: "h").reason
                == .unreachable(host: "h", .networkUnreachable))
        #expect(
            WebSocketDialer.classifyConnect(ChannelError.connectTimeout(.seconds(10)), host: "h").reason
                == .unreachable(host: "h", .timedOut))
        let other = WebSocketDialer.classifyConnect(ChannelError.eof, host: "h")
        #expect(!other.isUnreachable)
        #expect(other.kind == .transient)
    }
}
