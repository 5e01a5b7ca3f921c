import HTTP
import TestSupport
import Testing

@Suite struct HTTPClientTests {
    /// Happy paths get a timeout that only fires when something is really broken: `swift test`
    /// runs every suite in parallel and a 2-core machine can stall any one of them for seconds.
    private func chatRequest(
        _ server: TermLLMStandIn, query: String = "hello", session: String? = nil,
        inactivity: Duration? = .seconds(20), total: Duration? = nil
    ) -> HTTPRequest {
        var headers = [HTTPHeader("Authorization", "Bearer s3cret"), HTTPHeader("Content-Type", "application/json")]
        if let session { headers.append(HTTPHeader("session_id", session)) }
        return HTTPRequest(
            method: "POST", url: server.baseURL + "/v1/chat/completions", headers: headers,
            body: Array("{\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"\(query)\"}]}".utf8),
            inactivityTimeout: inactivity, totalTimeout: total)
    }

    private func text(_ response: HTTPResponse) async throws -> String {
        String(decoding: try await response.collect(), as: UTF8.self)
    }

    @Test func getReturnsStatusHeadersAndBody() async throws {
        let server = try await TermLLMStandIn.start()
        let client = try HTTPClient()
        let response = try await client.execute(HTTPRequest(url: server.baseURL + "/healthz"))
        #expect(response.status == 200)
        #expect(response.head.value(for: "content-type") == "application/json")
        #expect(try await text(response) == "{\"status\":\"ok\"}\n")
        await server.stop()
    }

    @Test func postStreamsSSEWithSessionHeader() async throws {
        let server = try await TermLLMStandIn.start()
        let client = try HTTPClient()
        let response = try await client.execute(chatRequest(server))
        #expect(response.status == 200)
        #expect(response.head.value(for: "content-type") == "text/event-stream")
        let sessionID = try #require(response.head.value(for: "x-session-id"))
        let body = try await text(response)
        #expect(body.hasPrefix("data: {\"choices\":[{\"delta\":{\"content\":\"Turn 1: \",\"role\":\"assistant\"},\"index\":0}]"))
        #expect(body.hasSuffix("data: [DONE]\n\n"))
        let recorded = try #require(server.recordedRequests.last)
        #expect(recorded.method == "POST")
        #expect(recorded.path == "/ui/v1/chat/completions")
        #expect(recorded.header("authorization") == "Bearer s3cret")
        #expect(recorded.header("expect") == nil)
        #expect(recorded.body.contains("\"content\":\"hello\""))
        #expect(await server.waitUntil { $0.history(of: sessionID).map(\.role) == ["user", "assistant"] })
        await server.stop()
    }

    @Test func inactivityTimeoutFiresWhenNothingArrives() async throws {
        let server = try await TermLLMStandIn.start()
        // The stall is far longer than the timeout and the wall-time bound, so only the timeout can end it.
        server.setPlanner { _ in TermLLMTurnPlan(steps: [.text("partial"), .silence(.seconds(60)), .text("late")]) }
        let client = try HTTPClient()
        let started = ContinuousClock.now
        await #expect {
            // The timeout may fire before the head on a starved machine; either way nothing arrived in time.
            let response = try await client.execute(chatRequest(server, inactivity: .milliseconds(300)))
            _ = try await response.collect()
        } throws: { error in
            (error as? HTTPError)?.kind == .inactivityTimeout
        }
        // Well under the 60 s stall: the timeout ended it (a loaded 2-core machine can take over 15 s).
        #expect(ContinuousClock.now - started < .seconds(45))
        #expect(await server.waitUntil { $0.interruptedRuns == 1 })
        await server.stop()
    }

    @Test func pingsKeepTheStreamAliveButTheTotalCapStillFires() async throws {
        var options = TermLLMStandIn.Options()
        options.pingInterval = .milliseconds(100)
        let server = try await TermLLMStandIn.start(options: options)
        // Without the pings the 60 s tool run would trip the 1.5 s inactivity timeout long before the cap.
        server.setPlanner { _ in TermLLMTurnPlan(steps: [.sleep(.seconds(60)), .text("never")]) }
        let client = try HTTPClient()
        let started = ContinuousClock.now
        let response = try await client.execute(chatRequest(server, inactivity: .milliseconds(1500), total: .seconds(3)))
        var received = ""
        await #expect {
            for try await chunk in response.body { received += String(decoding: chunk, as: UTF8.self) }
        } throws: { error in
            (error as? HTTPError)?.kind == .totalTimeout
        }
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(2950) && elapsed < .seconds(15))
        #expect(received.contains(": ping\n\n"))
        await server.stop()
    }

    @Test func cancellingTheTaskClosesTheConnection() async throws {
        let server = try await TermLLMStandIn.start()
        server.setPlanner { _ in TermLLMTurnPlan(steps: [.text("thinking"), .sleep(.seconds(60)), .text("done")]) }
        let client = try HTTPClient()
        let request = chatRequest(server)
        let task = Task {
            let response = try await client.execute(request)
            for try await _ in response.body {}
        }
        #expect(await server.waitUntil { $0.openConnections == 1 && !$0.recordedRequests.isEmpty })
        try await Task.sleep(for: .milliseconds(50))  // usually lands mid-body; a cancel during the head wait must work too
        task.cancel()
        await #expect {
            try await task.value
        } throws: { error in
            (error as? HTTPError)?.kind == .cancelled
        }
        #expect(await server.waitUntil { $0.interruptedRuns == 1 && $0.openConnections == 0 })
        await server.stop()
    }

    @Test func explicitCancelAbortsTheTransfer() async throws {
        let server = try await TermLLMStandIn.start()
        server.setPlanner { _ in TermLLMTurnPlan(steps: [.sleep(.seconds(60))]) }
        let client = try HTTPClient()
        let response = try await client.execute(chatRequest(server))
        response.cancel()
        await #expect(throws: HTTPError.self) { _ = try await response.collect() }
        #expect(await server.waitUntil { $0.interruptedRuns == 1 })
        await server.stop()
    }

    @Test func connectionRefusedIsCouldNotConnect() async throws {
        let closed = try ReservedPort.fresh()
        defer { withExtendedLifetime(closed) {} }  // held, not listening: refused until the test ends
        let url = "http://127.0.0.1:\(closed.port)/healthz"
        let client = try HTTPClient()
        do {
            _ = try await client.execute(HTTPRequest(url: url))
            Issue.record("expected a connect failure")
        } catch let error as HTTPError {
            #expect(error.kind == .couldNotConnect)
            #expect(error.host == "127.0.0.1")
            #expect(error.description.contains("127.0.0.1"))
            #expect(error.description.contains("CURLcode 7"))
        }
    }

    @Test func droppedConnectionMidStreamIsConnectionLost() async throws {
        let server = try await TermLLMStandIn.start()
        server.setPlanner { _ in TermLLMTurnPlan(steps: [.text("half"), .dropConnection]) }
        let client = try HTTPClient()
        let response = try await client.execute(chatRequest(server))
        await #expect {
            _ = try await response.collect()
        } throws: { error in
            (error as? HTTPError)?.kind == .connectionLost
        }
        await server.stop()
    }

    @Test func redirectsAreFollowedUpToTheLimit() async throws {
        let server = try await TermLLMStandIn.start()
        let client = try HTTPClient()
        let stray = "http://127.0.0.1:\(server.port)/v1/models"
        let followed = try await client.execute(HTTPRequest(url: stray))
        #expect(followed.status == 404)  // 307 -> /ui/ -> no such route
        _ = try await followed.collect()
        let notFollowed = try await client.execute(HTTPRequest(url: stray, maxRedirects: 0))
        #expect(notFollowed.status == 307)
        #expect(notFollowed.head.value(for: "location") == "/ui/")
        _ = try await notFollowed.collect()
        #expect(server.recordedRequests.map(\.path) == ["/v1/models", "/ui/", "/v1/models"])
        await server.stop()
    }

    @Test func slowConsumerGetsEverythingInOrderWithBoundedBuffering() async throws {
        let server = try await TermLLMStandIn.start()
        let pieces = (0..<300).map { "piece-\($0)-" + String(repeating: "x", count: 80) + ";" }
        server.setPlanner { _ in TermLLMTurnPlan(steps: pieces.map { .text($0) }) }
        let client = try HTTPClient()
        var request = chatRequest(server)
        request.maxBufferedBytes = 1024
        let response = try await client.execute(request)
        try await Task.sleep(for: .milliseconds(100))  // let the buffer fill and the transfer pause
        var body = ""
        for try await chunk in response.body {
            #expect(chunk.count <= 1024 + 16 * 1024)
            body += String(decoding: chunk, as: UTF8.self)
        }
        var position = body.startIndex
        for piece in pieces {
            let range = try #require(body[position...].firstRange(of: piece))
            position = range.upperBound
        }
        #expect(body.hasSuffix("data: [DONE]\n\n"))
        await server.stop()
    }

    @Test func headerLineBreaksAreRejected() async throws {
        let client = try HTTPClient()
        await #expect {
            _ = try await client.execute(HTTPRequest(url: "http://127.0.0.1:9/", headers: [HTTPHeader("X-Bad", "a\r\nInjected: 1")]))
        } throws: { error in
            (error as? HTTPError)?.kind == .invalidRequest
        }
    }

    @Test func hostExtractionDropsUserInfoPortAndPath() {
        #expect(HTTPRequest(url: "http://user:pw@10.0.0.52:8081/ui?x=1").host == "10.0.0.52")
        #expect(HTTPRequest(url: "https://[::1]:8443/a").host == "::1")
        #expect(HTTPRequest(url: "jarvis.local/ui").host == "jarvis.local")
    }
}
