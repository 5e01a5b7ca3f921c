/// term-llm's chat.completion.chunk SSE lines (`data: <json>\n\n`), keys sorted as Go writes them.
struct TermLLMChunks {
    let id: String
    let created: Int
    let model: String

    private func line(choice: [String: GoJSON], extra: [String: GoJSON] = [:]) -> String {
        var object: [String: GoJSON] = [
            "choices": .array([.object(choice)]), "created": .int(created), "id": .string(id),
            "model": .string(model), "object": .string("chat.completion.chunk")
        ]
        for (key, value) in extra { object[key] = value }
        return "data: " + GoJSON.object(object).serialized + "\n\n"
    }

    func content(_ text: String, withRole: Bool) -> String {
        var delta: [String: GoJSON] = ["content": .string(text)]
        if withRole { delta["role"] = .string("assistant") }
        return line(choice: ["delta": .object(delta), "index": .int(0)])
    }

    func roleOnly() -> String {
        line(choice: ["delta": .object(["role": .string("assistant")]), "index": .int(0)])
    }

    func toolCall(index: Int, id callID: String, name: String, arguments: String) -> String {
        let call: GoJSON = .object([
            "function": .object(["arguments": .string(arguments), "name": .string(name)]),
            "id": .string(callID), "index": .int(index), "type": .string("function")
        ])
        return line(choice: ["delta": .object(["tool_calls": .array([call])]), "index": .int(0)])
    }

    func heartbeat(callID: String, toolName: String) -> String {
        line(
            choice: ["delta": .object([:]), "index": .int(0)],
            extra: ["heartbeat": .object(["call_id": .string(callID), "tool_name": .string(toolName)])])
    }

    func finish(_ reason: String) -> String {
        line(choice: ["delta": .object([:]), "finish_reason": .string(reason), "index": .int(0)])
    }

    func error(message: String, type: String) -> String {
        line(
            choice: ["delta": .object([:]), "finish_reason": .string("error"), "index": .int(0)],
            extra: ["error": .object(["message": .string(message), "type": .string(type)])])
    }
}
