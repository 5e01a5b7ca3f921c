import Basics
import TestSupport
import Testing

/// The stand-in answers an out-of-band `response.create` (`conversation: "none"`) as the API does: a
/// response of its own, with audio and no `conversation.item.*` events, that leaves the conversation and its
/// turn as they were. Raw client, so what is checked is the stand-in.
@Suite(.timeLimit(.minutes(2))) struct StandInOutOfBandTests {
    static let readText: JSONValue = [
        "type": "response.create", "event_id": "speak",
        "response": [
            "conversation": "none", "output_modalities": ["audio"], "tool_choice": "none", "instructions": "Read it.",
            "input": [["type": "message", "role": "system", "content": [["type": "input_text", "text": "Dinner is ready."]]]]
        ]
    ]

    @Test func anOutOfBandResponseSpeaksOutsideTheConversation() async throws {
        var script = RealtimeStandInScript()
        script.answerAudio = SpeechFixture.tone(milliseconds: 500)
        try await StandInCurrentAPITests.withSession(script) { standIn, client in
            client.send(Self.readText)
            #expect(await client.waitForEvent("response.done"))
            #expect(standIn.rejections.isEmpty)
            let created = try #require(client.events(ofType: "response.created").first?["response"])
            #expect(created["conversation_id"] == .null)
            let done = try #require(client.events(ofType: "response.done").first?["response"])
            #expect(done["status"]?.stringValue == "completed")
            #expect(done["id"] == created["id"])
            #expect(done["conversation_id"] == .null)
            let deltas = client.events(ofType: "response.output_audio.delta")
            #expect(deltas.count == 5)
            #expect(deltas.allSatisfy { $0["response_id"] == created["id"] })
            #expect(client.events(ofType: "response.output_audio_transcript.done").first?["transcript"]?.stringValue == "Dinner is ready.")
            #expect(client.events(ofType: "conversation.item.added").isEmpty)
            #expect(client.events(ofType: "conversation.item.done").isEmpty)
            #expect(standIn.conversationItems.isEmpty)
            #expect(standIn.spokenItems.map(\.kind) == [.outOfBand])

            // The conversation's turn is untouched: its next response still makes the scripted call.
            client.send(["type": "response.create"])
            #expect(await client.waitForEvent("response.done", count: 2))
            #expect(client.events(ofType: "response.function_call_arguments.done").count == 1)
        }
    }

    @Test func anUnknownConversationIsRejected() async throws {
        try await StandInCurrentAPITests.withSession(.init()) { standIn, client in
            client.send(["type": "response.create", "response": ["conversation": "elsewhere"]])
            #expect(await client.waitForEvent("error"))
            #expect(client.events(ofType: "error").first?["error"]?["param"]?.stringValue == "response.conversation")
            #expect(client.events(ofType: "response.created").isEmpty)
            #expect(standIn.rejections.count == 1)
        }
    }
}
