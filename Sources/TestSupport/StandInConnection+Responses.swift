import Basics
import Realtime

/// The scripted responses: the turn's function calls (one per response), then the answer audio with its transcript.
extension StandInConnection {
    static func usage(outputAudioMs: Int) -> JSONValue {
        let outputAudio = outputAudioMs / 50
        return [
            "total_tokens": .number(Double(132 + 41 + outputAudio)), "input_tokens": 132, "output_tokens": .number(Double(41 + outputAudio)),
            "input_token_details": [
                "text_tokens": 59, "audio_tokens": 73, "image_tokens": 0, "cached_tokens": 64,
                "cached_tokens_details": ["text_tokens": 0, "audio_tokens": 64, "image_tokens": 0],
            ],
            "output_token_details": ["text_tokens": 41, "audio_tokens": .number(Double(outputAudio))],
        ]
    }

    private func response(_ id: String, status: String, output: [JSONValue], usage: JSONValue, details: JSONValue = .null) -> JSONValue {
        [
            "id": .string(id), "object": "realtime.response", "status": .string(status), "status_details": details,
            "output": .array(output), "conversation_id": "conv_standin", "output_modalities": ["audio"],
            "max_output_tokens": "inf", "metadata": .null, "usage": usage,
            "audio": ["output": ["format": ["type": "audio/pcm", "rate": 24000], "voice": "alloy"]],
        ]
    }

    private func finishResponse(itemID: String, nextStage: Stage) -> String? {
        state.withLock { state in
            state.activeResponse = nil
            state.stage = nextStage
            defer {
                state.lastItemID = itemID
                state.cancelReason = nil
            }
            return state.lastItemID
        }
    }

    func streamFunctionCall(responseID: String, index: Int) async {
        let calls = standIn.script.turnCalls
        let call = calls[min(max(0, index), calls.count - 1)]
        let itemID = newItemID()
        emit(["type": "response.created", "response": response(responseID, status: "in_progress", output: [], usage: .null)])
        var item: JSONValue = [
            "id": .string(itemID), "object": "realtime.item", "type": "function_call", "status": "in_progress",
            "name": .string(call.name), "call_id": .string(call.callID), "arguments": "",
        ]
        emit(["type": "response.output_item.added", "response_id": .string(responseID), "output_index": 0, "item": item])
        let previous = state.withLock { $0.lastItemID }
        emit(["type": "conversation.item.added", "previous_item_id": previous.map(JSONValue.string) ?? .null, "item": item])
        let arguments = call.arguments
        let middle = arguments.index(arguments.startIndex, offsetBy: arguments.count / 2)
        for piece in [arguments[..<middle], arguments[middle...]] {
            emit([
                "type": "response.function_call_arguments.delta", "response_id": .string(responseID), "item_id": .string(itemID),
                "output_index": 0, "call_id": .string(call.callID), "delta": .string(String(piece)),
            ])
        }
        emit([
            "type": "response.function_call_arguments.done", "response_id": .string(responseID), "item_id": .string(itemID),
            "output_index": 0, "call_id": .string(call.callID), "name": .string(call.name), "arguments": .string(arguments),
        ])
        if case .object(var fields) = item {
            fields["status"] = "completed"
            fields["arguments"] = .string(arguments)
            item = .object(fields)
        }
        emit(["type": "response.output_item.done", "response_id": .string(responseID), "output_index": 0, "item": item])
        emit(["type": "conversation.item.done", "previous_item_id": previous.map(JSONValue.string) ?? .null, "item": item])
        // Its function_call_output decides what comes next (the next scripted call, or the answer).
        _ = finishResponse(itemID: itemID, nextStage: .answer)
        emit(["type": "response.done", "response": response(responseID, status: "completed", output: [item], usage: Self.usage(outputAudioMs: 0))])
        emitRateLimits()
    }

    func streamAnswer(responseID: String) async {
        let script = standIn.script
        let itemID = newItemID()
        let previous = state.withLock { state -> String? in
            state.assistantAudioMs[itemID] = 0
            return state.lastItemID
        }
        emit(["type": "response.created", "response": response(responseID, status: "in_progress", output: [], usage: .null)])
        let inProgress: JSONValue = ["id": .string(itemID), "object": "realtime.item", "type": "message", "role": "assistant", "status": "in_progress", "content": []]
        emit(["type": "response.output_item.added", "response_id": .string(responseID), "output_index": 0, "item": inProgress])
        emit(["type": "conversation.item.added", "previous_item_id": previous.map(JSONValue.string) ?? .null, "item": inProgress])
        emit([
            "type": "response.content_part.added", "response_id": .string(responseID), "item_id": .string(itemID), "output_index": 0,
            "content_index": 0, "part": ["type": "audio", "transcript": ""],
        ])
        let words = script.answerTranscript.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        let chunk = max(1, script.samplesPerDelta)
        let chunkCount = (script.answerAudio.count + chunk - 1) / chunk
        var cancelReason: String?
        var sentSamples = 0
        for index in 0..<chunkCount {
            cancelReason = state.withLock { $0.cancelReason }
            if cancelReason != nil { break }
            let slice = Array(script.answerAudio[(index * chunk)..<min(script.answerAudio.count, (index + 1) * chunk)])
            emit([
                "type": "response.output_audio.delta", "response_id": .string(responseID), "item_id": .string(itemID), "output_index": 0,
                "content_index": 0, "delta": .string(Base64.encode(samples: slice)),
            ])
            sentSamples += slice.count
            let ms = sentSamples / 24
            state.withLock { $0.assistantAudioMs[itemID] = ms }
            standIn.countDelta()
            if index < words.count {
                emit([
                    "type": "response.output_audio_transcript.delta", "response_id": .string(responseID), "item_id": .string(itemID),
                    "output_index": 0, "content_index": 0, "delta": .string((index == 0 ? "" : " ") + words[index]), "obfuscation": "standin",
                ])
            }
            if number == 1, let dropAfter = script.dropConnectionAfterDeltas, index + 1 >= dropAfter {
                outgoingDrop()
                return
            }
            try? await Task.sleep(for: script.deltaPause)
        }
        if cancelReason == nil, chunkCount < words.count {
            emit([
                "type": "response.output_audio_transcript.delta", "response_id": .string(responseID), "item_id": .string(itemID),
                "output_index": 0, "content_index": 0, "delta": .string(" " + words[chunkCount...].joined(separator: " ")),
            ])
        }
        let transcript = cancelReason == nil ? script.answerTranscript : words.prefix(max(0, min(words.count, chunkCount))).joined(separator: " ")
        emit(["type": "response.output_audio.done", "response_id": .string(responseID), "item_id": .string(itemID), "output_index": 0, "content_index": 0])
        emit([
            "type": "response.output_audio_transcript.done", "response_id": .string(responseID), "item_id": .string(itemID),
            "output_index": 0, "content_index": 0, "transcript": .string(transcript),
        ])
        emit([
            "type": "response.content_part.done", "response_id": .string(responseID), "item_id": .string(itemID), "output_index": 0,
            "content_index": 0, "part": ["type": "audio", "transcript": .string(transcript)],
        ])
        let done: JSONValue = [
            "id": .string(itemID), "object": "realtime.item", "type": "message", "role": "assistant",
            "status": .string(cancelReason == nil ? "completed" : "incomplete"),
            "content": [["type": "output_audio", "transcript": .string(transcript)]],
        ]
        emit(["type": "response.output_item.done", "response_id": .string(responseID), "output_index": 0, "item": done])
        emit(["type": "conversation.item.done", "previous_item_id": previous.map(JSONValue.string) ?? .null, "item": done])
        _ = finishResponse(itemID: itemID, nextStage: .functionCall(0))
        let details: JSONValue = cancelReason.map { ["type": "cancelled", "reason": .string($0)] } ?? .null
        emit([
            "type": "response.done",
            "response": response(
                responseID, status: cancelReason == nil ? "completed" : "cancelled", output: [done],
                usage: Self.usage(outputAudioMs: sentSamples / 24), details: details),
        ])
        emitRateLimits()
    }

    private func emitRateLimits() {
        emit([
            "type": "rate_limits.updated",
            "rate_limits": [
                ["name": "requests", "limit": 5000, "remaining": 4999, "reset_seconds": 0.012],
                ["name": "tokens", "limit": 40000, "remaining": 35000, "reset_seconds": 7.5],
            ],
        ])
    }

    private func newItemID() -> String {
        state.withLock { state in
            state.counter += 1
            return "item_standin\(number)_\(state.counter)"
        }
    }
}
