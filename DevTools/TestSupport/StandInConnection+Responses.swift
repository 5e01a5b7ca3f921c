import Basics
import Glibc
import Realtime

/// The scripted responses: the turn's function calls (one per response), then the answer audio with its
/// transcript. A reasoning model's preamble and a filler the instructions asked for are message items of
/// their own in the same response, ahead of the call (or of the answer).
extension StandInConnection {
    /// One output item a response is to carry.
    enum PlannedItem: Sendable {
        /// `dropsConnection`: the item `dropConnectionAfterDeltas` counts (the answer).
        case message(SpokenItem.Kind, audio: [Int16], transcript: String, dropsConnection: Bool)
        case functionCall(ScriptedFunctionCall)
    }

    /// How one message item ended.
    struct StreamedMessage {
        var item: JSONValue
        var samples: Int
        var cancelReason: String?
    }

    static func usage(outputAudioMs: Int) -> JSONValue {
        let outputAudio = outputAudioMs / 50
        return [
            "total_tokens": .number(Double(132 + 41 + outputAudio)), "input_tokens": 132, "output_tokens": .number(Double(41 + outputAudio)),
            "input_token_details": [
                "text_tokens": 59, "audio_tokens": 73, "image_tokens": 0, "cached_tokens": 64,
                "cached_tokens_details": ["text_tokens": 0, "audio_tokens": 64, "image_tokens": 0]
            ],
            "output_token_details": ["text_tokens": 41, "audio_tokens": .number(Double(outputAudio))]
        ]
    }

    /// `inConversation` false: an out-of-band response, whose `conversation_id` is null.
    private func response(
        _ id: String, status: String, output: [JSONValue], usage: JSONValue, details: JSONValue = .null, inConversation: Bool = true
    ) -> JSONValue {
        [
            "id": .string(id), "object": "realtime.response", "status": .string(status), "status_details": details,
            "output": .array(output), "conversation_id": inConversation ? "conv_standin" : .null, "output_modalities": ["audio"],
            "max_output_tokens": "inf", "metadata": .null, "usage": usage,
            "audio": ["output": ["format": ["type": "audio/pcm", "rate": 24000], "voice": "alloy"]]
        ]
    }

    /// The items of the response for `stage`: only a turn's first response speaks a preamble or filler.
    func plan(for stage: Stage) -> [PlannedItem] {
        let script = standIn.script
        let preamble = PlannedItem.message(.preamble, audio: script.preambleAudio, transcript: script.preambleTranscript, dropsConnection: false)
        switch stage {
        case .functionCall(let index):
            let calls = script.turnCalls
            let call = PlannedItem.functionCall(calls[min(max(0, index), calls.count - 1)])
            guard index == 0 else { return [call] }
            var items: [PlannedItem] = []
            if !script.preambleAudio.isEmpty { items.append(preamble) }
            if let marker = script.fillerMarker, state.withLock({ $0.instructions.contains(marker) }) {
                items.append(.message(.filler, audio: script.fillerAudio, transcript: script.fillerTranscript, dropsConnection: false))
            }
            return items + [call]
        case .answer:
            let answer = PlannedItem.message(.answer, audio: script.answerAudio, transcript: script.answerTranscript, dropsConnection: true)
            return script.preambleBeforeAnswer && !script.preambleAudio.isEmpty ? [preamble, answer] : [answer]
        case .outOfBand(let text):
            return [.message(.outOfBand, audio: outOfBandAudio(text), transcript: text, dropsConnection: true)]
        }
    }

    /// The script's answer audio, or without one a 440 Hz tone of `outOfBandToneMillisecondsPerCharacter`
    /// per character of the text.
    func outOfBandAudio(_ text: String) -> [Int16] {
        let script = standIn.script
        guard script.answerAudio.isEmpty else { return script.answerAudio }
        let count = text.count * script.outOfBandToneMillisecondsPerCharacter * 24
        return (0..<count).map { Int16(8000 * sin(2 * Double.pi * 440 * Double($0) / 24000)) }
    }

    /// One response: its items in order until a cancel, which ends the item under way `incomplete` and
    /// sends none of the rest.
    func streamResponse(responseID: String, stage: Stage) async {
        let inConversation: Bool
        if case .outOfBand = stage { inConversation = false } else { inConversation = true }
        emit([
            "type": "response.created",
            "response": response(responseID, status: "in_progress", output: [], usage: .null, inConversation: inConversation)
        ])
        var output: [JSONValue] = []
        var samples = 0
        var cancelReason: String?
        var calledFunction = false
        items: for (index, planned) in plan(for: stage).enumerated() {
            cancelReason = state.withLock { $0.cancelReason }
            if cancelReason != nil { break }
            switch planned {
            case .message(let kind, let audio, let transcript, let dropsConnection):
                guard
                    let message = await streamMessage(
                        kind, responseID: responseID, outputIndex: index, audio: audio, transcript: transcript,
                        dropsConnection: dropsConnection, inConversation: inConversation)
                else { return }
                output.append(message.item)
                samples += message.samples
                cancelReason = message.cancelReason
                if cancelReason != nil { break items }
            case .functionCall(let call):
                output.append(streamFunctionCall(responseID: responseID, outputIndex: index, call: call))
                calledFunction = true
            }
        }
        // A call's function_call_output decides what comes next (the next scripted call, or the answer); a
        // turn cancelled before its call starts over.
        // An out-of-band response leaves the conversation's response and turn as they were.
        let next: Stage?
        switch stage {
        case .functionCall: next = calledFunction ? .answer : stage
        case .answer: next = .functionCall(0)
        case .outOfBand: next = nil
        }
        if let next {
            state.withLock { state in
                state.activeResponse = nil
                state.stage = next
                state.cancelReason = nil
            }
        }
        let details: JSONValue = cancelReason.map { ["type": "cancelled", "reason": .string($0)] } ?? .null
        emit([
            "type": "response.done",
            "response": response(
                responseID, status: cancelReason == nil ? "completed" : "cancelled", output: output,
                usage: Self.usage(outputAudioMs: samples / 24), details: details, inConversation: inConversation)
        ])
        emitRateLimits()
    }

    private func streamFunctionCall(responseID: String, outputIndex: Int, call: ScriptedFunctionCall) -> JSONValue {
        let itemID = newItemID()
        let index = JSONValue.number(Double(outputIndex))
        var item: JSONValue = [
            "id": .string(itemID), "object": "realtime.item", "type": "function_call", "status": "in_progress",
            "name": .string(call.name), "call_id": .string(call.callID), "arguments": ""
        ]
        emit(["type": "response.output_item.added", "response_id": .string(responseID), "output_index": index, "item": item])
        let previous = addItem(itemID)
        emit(["type": "conversation.item.added", "previous_item_id": previous.map(JSONValue.string) ?? .null, "item": item])
        let arguments = call.arguments
        let middle = arguments.index(arguments.startIndex, offsetBy: arguments.count / 2)
        for piece in [arguments[..<middle], arguments[middle...]] {
            emit([
                "type": "response.function_call_arguments.delta", "response_id": .string(responseID), "item_id": .string(itemID),
                "output_index": index, "call_id": .string(call.callID), "delta": .string(String(piece))
            ])
        }
        emit([
            "type": "response.function_call_arguments.done", "response_id": .string(responseID), "item_id": .string(itemID),
            "output_index": index, "call_id": .string(call.callID), "name": .string(call.name), "arguments": .string(arguments)
        ])
        if case .object(var fields) = item {
            fields["status"] = "completed"
            fields["arguments"] = .string(arguments)
            item = .object(fields)
        }
        emit(["type": "response.output_item.done", "response_id": .string(responseID), "output_index": index, "item": item])
        emit(["type": "conversation.item.done", "previous_item_id": previous.map(JSONValue.string) ?? .null, "item": item])
        return item
    }

    /// One assistant message item: audio deltas paced by `deltaPause`, one transcript word per delta (the
    /// rest after the audio). A cancel stops it before the next delta; the item ends `incomplete` with the
    /// words sent. nil: the script dropped the connection mid-item. Out of the conversation
    /// (`inConversation` false) it has no `conversation.item.*` events and cannot be truncated or deleted.
    private func streamMessage(
        _ kind: SpokenItem.Kind, responseID: String, outputIndex: Int, audio: [Int16], transcript: String, dropsConnection: Bool,
        inConversation: Bool
    ) async -> StreamedMessage? {
        let script = standIn.script
        let itemID = newItemID()
        standIn.recordSpoken(SpokenItem(id: itemID, responseID: responseID, kind: kind, audioMilliseconds: audio.count / 24))
        let previous: String?
        if inConversation {
            state.withLock { $0.assistantAudioMs[itemID] = 0 }
            previous = addItem(itemID)
        } else {
            previous = nil
        }
        let ids: [String: JSONValue] = [
            "response_id": .string(responseID), "item_id": .string(itemID), "output_index": .number(Double(outputIndex)), "content_index": 0
        ]
        func part(_ type: String, _ fields: [String: JSONValue] = [:]) -> JSONValue {
            .object(ids.merging(fields) { _, new in new }.merging(["type": .string(type)]) { _, new in new })
        }
        let inProgress: JSONValue = [
            "id": .string(itemID), "object": "realtime.item", "type": "message", "role": "assistant", "status": "in_progress", "content": []
        ]
        emit([
            "type": "response.output_item.added", "response_id": .string(responseID), "output_index": .number(Double(outputIndex)), "item": inProgress
        ])
        if inConversation {
            emit(["type": "conversation.item.added", "previous_item_id": previous.map(JSONValue.string) ?? .null, "item": inProgress])
        }
        emit(part("response.content_part.added", ["part": ["type": "audio", "transcript": ""]]))
        let words = transcript.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        let chunk = max(1, script.samplesPerDelta)
        let chunkCount = (audio.count + chunk - 1) / chunk
        var cancelReason: String?
        var sentSamples = 0
        var sentWords = 0
        for index in 0..<chunkCount {
            cancelReason = state.withLock { $0.cancelReason }
            if cancelReason != nil { break }
            let slice = Array(audio[(index * chunk)..<min(audio.count, (index + 1) * chunk)])
            emit(part("response.output_audio.delta", ["delta": .string(Base64.encode(samples: slice))]))
            sentSamples += slice.count
            let ms = sentSamples / 24
            if inConversation { state.withLock { $0.assistantAudioMs[itemID] = ms } }
            standIn.countDelta()
            if index < words.count {
                emit(
                    part(
                        "response.output_audio_transcript.delta", ["delta": .string((index == 0 ? "" : " ") + words[index]), "obfuscation": "standin"]
                    ))
                sentWords += 1
            }
            if dropsConnection, number == 1, let dropAfter = script.dropConnectionAfterDeltas, index + 1 >= dropAfter {
                outgoingDrop()
                return nil
            }
            try? await Task.sleep(for: script.deltaPause)
        }
        if cancelReason == nil, sentWords < words.count {
            let rest = words[sentWords...].joined(separator: " ")
            emit(part("response.output_audio_transcript.delta", ["delta": .string(sentWords == 0 ? rest : " " + rest)]))
            sentWords = words.count
        }
        let said = cancelReason == nil ? transcript : words.prefix(sentWords).joined(separator: " ")
        emit(part("response.output_audio.done"))
        emit(part("response.output_audio_transcript.done", ["transcript": .string(said)]))
        emit(part("response.content_part.done", ["part": ["type": "audio", "transcript": .string(said)]]))
        let done: JSONValue = [
            "id": .string(itemID), "object": "realtime.item", "type": "message", "role": "assistant",
            "status": .string(cancelReason == nil ? "completed" : "incomplete"),
            "content": [["type": "output_audio", "transcript": .string(said)]]
        ]
        emit(["type": "response.output_item.done", "response_id": .string(responseID), "output_index": .number(Double(outputIndex)), "item": done])
        if inConversation {
            emit(["type": "conversation.item.done", "previous_item_id": previous.map(JSONValue.string) ?? .null, "item": done])
        }
        return StreamedMessage(item: done, samples: sentSamples, cancelReason: cancelReason)
    }

    private func emitRateLimits() {
        emit([
            "type": "rate_limits.updated",
            "rate_limits": [
                ["name": "requests", "limit": 5000, "remaining": 4999, "reset_seconds": 0.012],
                ["name": "tokens", "limit": 40000, "remaining": 35000, "reset_seconds": 7.5]
            ]
        ])
    }

    private func newItemID() -> String {
        state.withLock { state in
            state.counter += 1
            return "item_standin\(number)_\(state.counter)"
        }
    }
}
