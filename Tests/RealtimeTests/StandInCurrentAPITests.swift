import Basics
import TestSupport
import Testing

/// The Realtime stand-in speaks the API as it is after the 2027-01-20 shutdowns: retired models and an
/// account that cannot pay or asks too often are refused at the upgrade with OpenAI's status and JSON body,
/// and reasoning models speak preambles, message items of their own in the same response. Raw clients
/// (`HTTPProbe`, `RealtimeProbeClient`), so what is checked is the stand-in, not the product's client.
@Suite(.timeLimit(.minutes(3))) struct StandInCurrentAPITests {
    static let model = "gpt-realtime-2.1-mini"
    static let creditBody =
        #"{"error":{"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.","type":"insufficient_quota","param":null,"code":"credit_balance_exhausted"}}"#
    static let rateLimitBody =
        #"{"error":{"message":"Rate limit reached for requests. Please try again in 1s.","type":"requests","param":null,"code":"rate_limit_exceeded"}}"#

    static func modelNotFoundBody(_ model: String) -> String {
        #"{"error":{"message":"The model `\#(model)` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}"#
    }

    /// Runs `body` against a fresh stand-in and shuts it down whatever happens.
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

    /// Runs `body` with a WebSocket to a fresh stand-in that has sent `session.created`.
    static func withSession(_ script: RealtimeStandInScript, _ body: (RealtimeStandIn, RealtimeProbeClient) async throws -> Void) async throws {
        try await withStandIn(script) { standIn in
            let client = try await RealtimeProbeClient.connect(port: standIn.port, model: model, apiKey: script.apiKey)
            do {
                #expect(await client.waitForEvent("session.created"))
                try await body(standIn, client)
            } catch {
                await client.close()
                throw error
            }
            await client.close()
        }
    }

    // MARK: - Refused upgrades

    @Test(arguments: RealtimeStandInScript.shutDownOnJanuary20th2027.sorted())
    func aRetiredModelIsRefusedWith404(_ model: String) async throws {
        try await Self.withStandIn { standIn in
            let response = try await HTTPProbe.realtimeUpgrade(port: standIn.port, model: model, apiKey: standIn.script.apiKey)
            #expect(response.status == 404)
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.header("Connection") == "close")
            #expect(response.body == Self.modelNotFoundBody(model))
            #expect(standIn.requestedModels == [model])
            #expect(standIn.refusedUpgrades == 1)
            #expect(standIn.authorizationFailures == 0, "a retired model is not a key problem")
            #expect(standIn.connectionCount == 0)
        }
    }

    @Test func anUpgradeWithoutAModelIsRefusedWith404() async throws {
        try await Self.withStandIn { standIn in
            let response = try await HTTPProbe.realtimeUpgrade(port: standIn.port, model: nil, apiKey: standIn.script.apiKey)
            #expect(response.status == 404)
            #expect(response.body == Self.modelNotFoundBody(""))
            #expect(standIn.requestedModels == [""])
        }
    }

    @Test(arguments: RealtimeStandInScript.currentModels)
    func aCurrentModelUpgrades(_ model: String) async throws {
        try await Self.withStandIn { standIn in
            let response = try await HTTPProbe.realtimeUpgrade(port: standIn.port, model: model, apiKey: standIn.script.apiKey)
            #expect(response.status == 101)
            #expect(response.header("Upgrade")?.lowercased() == "websocket")
            #expect(standIn.requestedModels == [model])
            #expect(standIn.refusedUpgrades == 0)
            #expect(await standIn.waitUntil { standIn.connectionCount == 1 })
        }
    }

    /// With `.http401` the key is refused before the model is looked at (401, not 404).
    @Test func aWrongKeyIsRefusedBeforeTheModel() async throws {
        var script = RealtimeStandInScript()
        script.authFailure = .http401
        try await Self.withStandIn(script) { standIn in
            let response = try await HTTPProbe.realtimeUpgrade(port: standIn.port, model: "gpt-realtime", apiKey: "sk-wrong")
            #expect(response.status == 401)
            #expect(
                response.body
                    == #"{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#)
            #expect(standIn.authorizationFailures == 1)
            #expect(standIn.refusedUpgrades == 1)
        }
    }

    /// The default key failure is still the live API's: upgrade, then the error event.
    @Test func aWrongKeyStillUpgradesByDefault() async throws {
        try await Self.withStandIn { standIn in
            let response = try await HTTPProbe.realtimeUpgrade(port: standIn.port, model: Self.model, apiKey: "sk-wrong")
            #expect(response.status == 101)
            #expect(await standIn.waitUntil { standIn.authorizationFailures == 1 })
            #expect(standIn.refusedUpgrades == 0)
        }
    }

    @Test func exhaustedCreditIsRefusedWith429EveryTime() async throws {
        var script = RealtimeStandInScript()
        script.upgradeRefusal = .creditExhausted
        try await Self.withStandIn(script) { standIn in
            for attempt in 1...3 {
                let response = try await HTTPProbe.realtimeUpgrade(port: standIn.port, model: Self.model, apiKey: script.apiKey)
                #expect(response.status == 429, "attempt \(attempt)")
                #expect(response.header("Content-Type") == "application/json")
                #expect(response.header("retry-after") == nil)
                #expect(response.body == Self.creditBody)
            }
            #expect(standIn.refusedUpgrades == 3)
            #expect(standIn.upgradeAttempts == 3)
            #expect(standIn.authorizationFailures == 0)
            #expect(standIn.connectionCount == 0)
        }
    }

    @Test func aRateLimitRefusesTwiceThenUpgrades() async throws {
        var script = RealtimeStandInScript()
        script.upgradeRefusal = .rateLimited(times: 2, retryAfterSeconds: 1)
        try await Self.withStandIn(script) { standIn in
            for attempt in 1...2 {
                let response = try await HTTPProbe.realtimeUpgrade(port: standIn.port, model: Self.model, apiKey: script.apiKey)
                #expect(response.status == 429, "attempt \(attempt)")
                #expect(response.header("retry-after") == "1")
                #expect(response.body == Self.rateLimitBody)
            }
            let third = try await HTTPProbe.realtimeUpgrade(port: standIn.port, model: Self.model, apiKey: script.apiKey)
            #expect(third.status == 101)
            #expect(standIn.refusedUpgrades == 2)
            #expect(standIn.requestedModels == [Self.model, Self.model, Self.model])
            #expect(await standIn.waitUntil { standIn.upgradeAttempts == 3 && standIn.connectionCount == 1 })
        }
    }

    // MARK: - Preambles and fillers

    /// A reasoning model's first response: a complete preamble message item, then the function call, each
    /// with its own id and output_index, in one response whose usage counts the preamble's audio. With
    /// `preambleBeforeAnswer` the answer response carries a preamble and the answer.
    @Test func aPreambleIsAMessageItemOfItsOwnInTheSameResponse() async throws {
        var script = RealtimeStandInScript()
        script.preambleAudio = SpeechFixture.tone(milliseconds: 200)
        script.answerAudio = SpeechFixture.tone(milliseconds: 300)
        script.preambleBeforeAnswer = true
        try await Self.withSession(script) { _, client in
            client.send(["type": "response.create"])
            #expect(await client.waitForEvent("response.done"))
            #expect(client.events(ofType: "response.created").count == 1)
            let added = client.events(ofType: "response.output_item.added")
            #expect(added.map { $0["output_index"]?.numberValue } == [0, 1])
            #expect(added.map { $0["item"]?["type"]?.stringValue } == ["message", "function_call"])
            let first = try #require(client.events(ofType: "response.done").first?["response"])
            #expect(first["status"]?.stringValue == "completed")
            let output = first["output"]?.elements ?? []
            #expect(output.map { $0["type"]?.stringValue } == ["message", "function_call"])
            let preambleID = try #require(output.first?["id"]?.stringValue)
            let callID = try #require(output.last?["id"]?.stringValue)
            #expect(preambleID != callID)
            #expect(output.first?["status"]?.stringValue == "completed")
            #expect(output.first?["content"]?.elements.first?["transcript"]?.stringValue == script.preambleTranscript)
            let deltas = client.events(ofType: "response.output_audio.delta")
            #expect(deltas.count == 2)
            #expect(deltas.allSatisfy { $0["item_id"]?.stringValue == preambleID && $0["output_index"]?.numberValue == 0 })
            #expect(first["usage"]?["output_token_details"]?["audio_tokens"]?.numberValue == 4, "200 ms of preamble audio")
            let callAdded = client.events(ofType: "conversation.item.added").first { $0["item"]?["id"]?.stringValue == callID }
            #expect(callAdded?["previous_item_id"]?.stringValue == preambleID)
            #expect(client.events(ofType: "response.function_call_arguments.done").first?["output_index"]?.numberValue == 1)

            client.send([
                "type": "conversation.item.create",
                "item": ["type": "function_call_output", "call_id": .string(script.callID), "output": #"{"answer":"nothing today"}"#]
            ])
            client.send(["type": "response.create"])
            #expect(await client.waitForEvent("response.done", count: 2))
            #expect(client.events(ofType: "response.created").count == 2, "one response, two message items")
            let second = try #require(client.events(ofType: "response.done").last?["response"])
            let answerOutput = second["output"]?.elements ?? []
            #expect(
                answerOutput.map { $0["content"]?.elements.first?["transcript"]?.stringValue } == [script.preambleTranscript, script.answerTranscript]
            )
            let ids = answerOutput.compactMap { $0["id"]?.stringValue }
            #expect(Set(ids + [preambleID, callID]).count == 4, "every item has its own id")
            let answerDeltas = client.events(ofType: "response.output_audio.delta").dropFirst(2)
            #expect(answerDeltas.map { $0["item_id"]?.stringValue } == [ids.first, ids.first, ids.last, ids.last, ids.last])
            #expect(answerDeltas.map { $0["output_index"]?.numberValue } == [0, 0, 1, 1, 1])
            #expect(second["usage"]?["output_token_details"]?["audio_tokens"]?.numberValue == 10, "500 ms of audio")
        }
    }

    /// A cancel in the preamble ends it `incomplete` and the function call is never sent; a truncate on the
    /// preamble is checked against that item's audio, and only items the conversation has can be deleted.
    @Test func aCancelInThePreambleStopsTheResponseThere() async throws {
        var script = RealtimeStandInScript()
        script.preambleAudio = SpeechFixture.tone(milliseconds: 30_000)
        script.deltaPause = .milliseconds(100)
        try await Self.withSession(script) { _, client in
            client.send(["type": "response.create"])
            #expect(await client.waitForEvent("response.output_audio.delta"))
            client.send(["type": "response.cancel"])
            #expect(await client.waitForEvent("response.done"))
            let done = try #require(client.events(ofType: "response.done").first?["response"])
            #expect(done["status"]?.stringValue == "cancelled")
            #expect(done["status_details"]?["reason"]?.stringValue == "client_cancelled")
            let output = done["output"]?.elements ?? []
            #expect(output.map { $0["type"]?.stringValue } == ["message"])
            #expect(output.first?["status"]?.stringValue == "incomplete")
            #expect(client.events(ofType: "response.output_item.added").count == 1)
            #expect(client.events(ofType: "response.function_call_arguments.done").isEmpty)
            let preambleID = try #require(output.first?["id"]?.stringValue)
            let sentMs = client.events(ofType: "response.output_audio.delta").count * 100
            #expect(sentMs < 30_000)

            client.send([
                "type": "conversation.item.truncate", "item_id": .string(preambleID), "content_index": 0,
                "audio_end_ms": .number(Double(sentMs + 100))
            ])
            #expect(await client.waitForEvent("error"))
            #expect(client.events(ofType: "error").last?["error"]?["param"]?.stringValue == "audio_end_ms")
            client.send([
                "type": "conversation.item.truncate", "item_id": .string(preambleID), "content_index": 0, "audio_end_ms": .number(Double(sentMs))
            ])
            #expect(await client.waitForEvent("conversation.item.truncated"))
            #expect(client.events(ofType: "conversation.item.truncated").first?["audio_end_ms"]?.numberValue == Double(sentMs))

            client.send(["type": "conversation.item.delete", "item_id": "item_nobody_made"])
            #expect(await client.waitForEvent("error", count: 2))
            let refused = client.events(ofType: "error").last?["error"]
            #expect(refused?["code"]?.stringValue == "item_delete_invalid_item_id")
            #expect(refused?["message"]?.stringValue == "Error deleting item: the item with id 'item_nobody_made' does not exist.")
            client.send(["type": "conversation.item.delete", "item_id": .string(preambleID)])
            #expect(await client.waitForEvent("conversation.item.deleted"))
            #expect(client.events(ofType: "conversation.item.deleted").first?["item_id"]?.stringValue == preambleID)
            client.send(["type": "conversation.item.delete", "item_id": .string(preambleID)])
            #expect(await client.waitForEvent("error", count: 3), "a deleted item is gone")
        }
    }

    /// A filler the instructions ask for is said as its own item; a reasoning model told to say one says
    /// two acknowledgements (its preamble, then the filler) before the call.
    @Test(arguments: [false, true], [false, true])
    func acknowledgementsBeforeTheCall(reasoning: Bool, toldToSayAFiller: Bool) async throws {
        var script = RealtimeStandInScript()
        if reasoning { script.preambleAudio = SpeechFixture.tone(milliseconds: 200) }
        script.fillerMarker = "[filler]"
        script.fillerAudio = SpeechFixture.tone(milliseconds: 100)
        try await Self.withSession(script) { _, client in
            let instructions = "You are the voice of Jarvis." + (toldToSayAFiller ? " Say a short filler before ask_jarvis. [filler]" : "")
            client.send(["type": "session.update", "session": ["type": "realtime", "instructions": .string(instructions)]])
            #expect(await client.waitForEvent("session.updated"))
            client.send(["type": "response.create"])
            #expect(await client.waitForEvent("response.done"))
            let output = client.events(ofType: "response.done").first?["response"]?["output"]?.elements ?? []
            let said = output.filter { $0["type"]?.stringValue == "message" }.map { $0["content"]?.elements.first?["transcript"]?.stringValue ?? "" }
            let expected = (reasoning ? [script.preambleTranscript] : []) + (toldToSayAFiller ? [script.fillerTranscript] : [])
            #expect(said == expected)
            #expect(output.last?["type"]?.stringValue == "function_call")
            #expect(
                client.events(ofType: "response.output_item.added").compactMap { $0["output_index"]?.numberValue }
                    == (0...expected.count).map { Double($0) })
        }
    }
}

extension JSONValue {
    fileprivate var elements: [JSONValue] {
        if case .array(let items) = self { return items }
        return []
    }
}
