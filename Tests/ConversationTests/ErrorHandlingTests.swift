import Realtime
import Testing

@testable import Conversation

@Suite struct ErrorHandlingTests {
    func processing() -> EngineHarness {
        var h = EngineHarness()
        h.startHandsFree()
        h.server(.speechStarted(audioStartMs: 0, itemID: "U1"), after: 100)
        h.server(.speechStopped(audioEndMs: 900, itemID: "U1"), after: 800)
        return h
    }

    @Test(arguments: ["conversation_already_has_active_response", "input_audio_buffer_commit_empty", "response_cancel_not_active"])
    func benignErrorsChangeNothing(code: String) {
        var h = processing()
        let before = h.state
        h.server(.error(RealtimeError(type: "invalid_request_error", code: code, message: "…")), after: 10)
        #expect(h.state == before)
        #expect(!h.last.contains(earcon: .error))
        #expect(!h.last.contains(.disconnectRealtime))
        #expect(h.lastSent.isEmpty)
    }

    @Test func rejectedCreateIsRetriedAfterTheActiveResponse() {
        var h = processing()
        // The tool finishes while a VAD response we have not seen yet is running.
        h.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")))
        h.server(
            .functionCallArgumentsDone(FunctionCall(responseID: "R1", itemID: "F1", callID: "c1", name: "ask_jarvis", arguments: #"{"query":"q"}"#)))
        h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")), after: 10)
        h.handle(.toolFinished(callID: "c1", output: .success("ok")), after: 100)
        #expect(h.lastSent.last == .responseCreate(nil))
        h.server(.error(RealtimeError(code: "conversation_already_has_active_response", message: "busy")), after: 10)
        h.server(.responseCreated(ResponseInfo(id: "R9", status: "in_progress")), after: 10)
        h.server(.responseDone(ResponseInfo(id: "R9", status: "completed")), after: 100)
        #expect(h.lastSent == [.responseCreate(nil)], "one create, sent once the other response is done")
    }

    @Test func otherErrorsPlayTheErrorEarconAndRecover() {
        var h = processing()
        h.server(.error(RealtimeError(type: "invalid_request_error", code: "invalid_value", message: "bad")), after: 10)
        #expect(h.last.contains(earcon: .error))
        #expect(h.last.contains { if case .log(.error, let line) = $0 { line.contains("invalid_value") } else { false } })
        // The appliance asked for the answer itself (create_response is off): it may still come, and the
        // processing timeout is the backstop.
        #expect(h.state == .processing)
        h.fire(.processingTimeout)
        #expect(h.state == .listening)
    }

    @Test func sessionExpiredEndsTheConversation() {
        var h = processing()
        h.server(.error(RealtimeError(code: "session_expired", message: "Your session hit the maximum duration of 60 minutes.")), after: 10)
        #expect(h.state == .error)
        #expect(h.last.contains(.disconnectRealtime) && h.last.contains(.unduckMedia))
    }

    @Test func staleTimersAreIgnored() {
        var h = EngineHarness()
        h.handle(.button(.tap(pressedAt: .zero)))
        h.handle(.timerFired(.quietPeriod), after: 60_000)
        #expect(h.last.isEmpty)
        h.handle(.realtimeConnected)
        h.server(.sessionCreated(SessionInfo()))
        // The connect timeout was cancelled; if it still fires, nothing happens.
        h.handle(.timerFired(.connectTimeout), after: 5)
        #expect(h.last.isEmpty)
        #expect(h.state == .listening)
        // Fired before its deadline (clock skew in the executor): ignored.
        h.handle(.timerFired(.quietPeriod), after: 1)
        #expect(h.state == .listening)
    }
}
