import FoundationEssentials

/// What one SSE event of a Jarvis stream means to the client, for either API.
public enum JarvisStreamEvent: Sendable, Equatable {
    /// Answer text to speak (`delta.content`, `response.output_text.delta`).
    case text(String)
    /// The agent called a tool (text before it was a preamble). Name and JSON arguments when known.
    case toolCall(name: String?, arguments: String?)
    /// Keep-alive without content: `: ping`, tool heartbeats, role-only or usage chunks, interjections.
    case keepAlive
    /// The run finished normally (`finish_reason` "stop" or "tool_calls", `response.completed`).
    /// `responseID` is the id to chain with on the responses API.
    case finished(responseID: String?)
    /// The server reported a failure in-band (`finish_reason: "error"` with `error`, `response.failed`).
    case failed(message: String, type: String)
    /// `data: [DONE]`.
    case done
    /// An event we could not read (malformed JSON); ignored.
    case unreadable
}

/// Maps chat.completion.chunk events (term-llm and OpenClaw) to `JarvisStreamEvent`s.
public enum ChatCompletionsStreamDecoder {
    private struct Chunk: Decodable {
        struct Choice: Decodable {
            struct Delta: Decodable {
                struct ToolCall: Decodable {
                    struct Function: Decodable {
                        var name: String?
                        var arguments: String?
                    }
                    var function: Function?
                }
                var content: String?
                var toolCalls: [ToolCall]?
                enum CodingKeys: String, CodingKey {
                    case content
                    case toolCalls = "tool_calls"
                }
            }
            var delta: Delta?
            var finishReason: String?
            enum CodingKeys: String, CodingKey {
                case delta
                case finishReason = "finish_reason"
            }
        }
        struct APIError: Decodable {
            var message: String?
            var type: String?
        }
        var choices: [Choice]?
        var error: APIError?
    }

    public static func decode(_ item: SSEItem) -> [JarvisStreamEvent] {
        guard case .event(let event) = item else { return [.keepAlive] }
        if event.data == "[DONE]" { return [.done] }
        guard let chunk = try? JSONDecoder().decode(Chunk.self, from: Data(event.data.utf8)) else { return [.unreadable] }
        if let error = chunk.error {
            return [.failed(message: error.message ?? "unknown error", type: error.type ?? "server_error")]
        }
        var events: [JarvisStreamEvent] = []
        for choice in chunk.choices ?? [] {
            if let calls = choice.delta?.toolCalls, !calls.isEmpty {
                events.append(contentsOf: calls.map { .toolCall(name: $0.function?.name, arguments: $0.function?.arguments) })
            }
            if let content = choice.delta?.content, !content.isEmpty { events.append(.text(content)) }
            switch choice.finishReason {
            case "stop", "tool_calls", "length", "content_filter": events.append(.finished(responseID: nil))
            case "error": events.append(.failed(message: "the run failed", type: "server_error"))
            default: break
            }
        }
        return events.isEmpty ? [.keepAlive] : events
    }
}

/// Maps Responses API stream events (`event: response.*`) to `JarvisStreamEvent`s.
public enum ResponsesStreamDecoder {
    private struct Payload: Decodable {
        struct Item: Decodable {
            var type: String?
            var name: String?
            var arguments: String?
        }
        struct Response: Decodable { var id: String? }
        struct APIError: Decodable {
            var message: String?
            var type: String?
        }
        var type: String?
        var delta: String?
        var item: Item?
        var response: Response?
        var error: APIError?
    }

    public static func decode(_ item: SSEItem) -> [JarvisStreamEvent] {
        guard case .event(let event) = item else { return [.keepAlive] }
        if event.data == "[DONE]" { return [.done] }
        guard let payload = try? JSONDecoder().decode(Payload.self, from: Data(event.data.utf8)) else { return [.unreadable] }
        switch event.type ?? payload.type ?? "" {
        case "response.output_text.delta":
            return payload.delta.map { [.text($0)] } ?? [.keepAlive]
        case "response.output_item.added":
            return payload.item?.type == "function_call" ? [.toolCall(name: payload.item?.name, arguments: payload.item?.arguments)] : [.keepAlive]
        case "response.output_text.new_segment":
            return [.toolCall(name: nil, arguments: nil)]
        case "response.completed":
            return [.finished(responseID: payload.response?.id)]
        case "response.failed":
            return [.failed(message: payload.error?.message ?? "the run failed", type: payload.error?.type ?? "server_error")]
        case "response.cancelled":
            return [.failed(message: "the run was cancelled", type: "cancelled")]
        default:
            return [.keepAlive]
        }
    }
}
