import Jarvis
import Testing

@Suite struct SSEParserTests {
    @Test func parsesDataCommentsAndEventsAcrossArbitraryChunkSplits() {
        let stream = "data: {\"a\":1}\n\n: ping\n\nid: 3\nevent: response.output_text.delta\ndata: {\"delta\":\"x\"}\n\ndata: [DONE]\n\n"
        let bytes = Array(stream.utf8)
        let expected: [SSEItem] = [
            .event(SSEEvent(type: nil, data: "{\"a\":1}", id: nil)),
            .comment("ping"),
            .event(SSEEvent(type: "response.output_text.delta", data: "{\"delta\":\"x\"}", id: "3")),
            .event(SSEEvent(type: nil, data: "[DONE]", id: "3"))
        ]
        for split in 1..<bytes.count {
            var parser = SSEParser()
            let items = parser.feed(bytes[..<split]) + parser.feed(bytes[split...]) + parser.finish()
            #expect(items == expected, "split at \(split)")
        }
    }

    @Test func handlesCRLFAndCRLineEndsAndMultiLineData() {
        var parser = SSEParser()
        let items = parser.feed(Array("data: one\r\ndata: two\r\n\r\ndata:three\r\r".utf8))
        #expect(items == [.event(SSEEvent(type: nil, data: "one\ntwo", id: nil)), .event(SSEEvent(type: nil, data: "three", id: nil))])
    }

    @Test func unterminatedFinalEventIsDeliveredAtFinish() {
        var parser = SSEParser()
        #expect(parser.feed(Array("data: [DONE]".utf8)).isEmpty)
        #expect(parser.finish() == [.event(SSEEvent(type: nil, data: "[DONE]", id: nil))])
    }
}

@Suite struct StreamDecoderTests {
    private func decode(_ line: String) -> [JarvisStreamEvent] {
        var parser = SSEParser()
        return parser.feed(Array((line + "\n\n").utf8)).flatMap(ChatCompletionsStreamDecoder.decode)
    }

    // Bytes from jarvis-backend.md §3.1.
    @Test func termLLMChunksFromTheReference() {
        let id =
            "\"created\":1755825350,\"id\":\"chatcmpl_20260822-111550-9f2c4e6a8b0d1e3f\",\"model\":\"claude-sonnet-4-6\",\"object\":\"chat.completion.chunk\"}"
        #expect(
            decode("data: {\"choices\":[{\"delta\":{\"content\":\"Let me check.\",\"role\":\"assistant\"},\"index\":0}]," + id)
                == [.text("Let me check.")])
        #expect(
            decode(
                "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":\"{\\\"query\\\":\\\"Sydney weather\\\"}\",\"name\":\"web_search\"},\"id\":\"toolu_01A\",\"index\":0,\"type\":\"function\"}]},\"index\":0}],"
                    + id)
                == [.toolCall(name: "web_search", arguments: "{\"query\":\"Sydney weather\"}")])
        #expect(decode(": ping") == [.keepAlive])
        #expect(
            decode(
                "data: {\"choices\":[{\"delta\":{},\"index\":0}],\"created\":1755825350,\"heartbeat\":{\"call_id\":\"toolu_01A\",\"tool_name\":\"web_search\"},\"id\":\"chatcmpl_x\",\"model\":\"m\",\"object\":\"chat.completion.chunk\"}"
            )
                == [.keepAlive])
        #expect(decode("data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\",\"index\":0}]," + id) == [.finished(responseID: nil)])
        #expect(
            decode(
                "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"error\",\"index\":0}],\"created\":1755825360,\"error\":{\"message\":\"session is busy processing another request\",\"type\":\"conflict_error\"},\"id\":\"chatcmpl_x\",\"model\":\"m\",\"object\":\"chat.completion.chunk\"}"
            )
                == [.failed(message: "session is busy processing another request", type: "conflict_error")])
        #expect(decode("data: {\"choices\":[],\"usage\":{\"total_tokens\":3}}") == [.keepAlive])
        #expect(decode("data: [DONE]") == [.done])
        #expect(decode("data: {not json") == [.unreadable])
    }

    @Test func responsesEvents() {
        func decode(_ text: String) -> [JarvisStreamEvent] {
            var parser = SSEParser()
            return parser.feed(Array((text + "\n\n").utf8)).flatMap(ResponsesStreamDecoder.decode)
        }
        #expect(
            decode(
                "id: 2\nevent: response.output_text.delta\ndata: {\"response_id\":\"resp_1\",\"output_index\":0,\"delta\":\"Hi\",\"sequence_number\":2}"
            )
                == [.text("Hi")])
        #expect(
            decode("event: response.completed\ndata: {\"response\":{\"id\":\"resp_msg_42\",\"status\":\"completed\"}}")
                == [.finished(responseID: "resp_msg_42")])
        #expect(
            decode("event: response.failed\ndata: {\"response\":{\"status\":\"failed\"},\"error\":{\"message\":\"boom\",\"type\":\"server_error\"}}")
                == [.failed(message: "boom", type: "server_error")])
        #expect(decode("event: response.heartbeat\ndata: {\"call_id\":\"c\",\"tool_name\":\"t\"}") == [.keepAlive])
    }
}
