import Basics
import Glibc
import NIOCore
import NIOWebSocket
import Realtime
import Synchronization

/// One WebSocket connection of the Realtime stand-in: the GA protocol logic, energy VAD and scripted responses.
final class StandInConnection: Sendable {
    enum Outgoing: Sendable {
        case frame(WebSocketFrame)
        case drop
    }

    /// What the next response does: the turn's n-th scripted function call, or the answer audio; or, out
    /// of band (`conversation: "none"`), speak `text` apart from the turn.
    enum Stage: Sendable, Equatable {
        case functionCall(Int)
        case answer
        case outOfBand(text: String)
    }

    struct State: Sendable {
        var model = "gpt-realtime"
        var turnDetection: String? = "server_vad"
        var silenceMs: Int
        var createResponse = true
        var interruptResponse = true
        var vad: EnergyVAD
        var bufferedSamples = 0
        var speechItemID: String?
        var lastItemID: String?
        var counter = 0
        var activeResponse: String?
        var cancelReason: String?
        var stage: Stage = .functionCall(0)
        /// Per assistant message item: the audio sent so far, what `conversation.item.truncate` is checked against.
        var assistantAudioMs: [String: Int] = [:]
        /// Every item in the conversation (user, assistant, function call, created): what may be deleted.
        var items: Set<String> = []
        var closing = false
        var voice = "alloy"
        var instructions = "Your knowledge cutoff is 2023-10."
        var tools: JSONValue = .array([])
        var transcription: JSONValue = .null
        var noiseReduction: JSONValue = .null
        var sessionID = "sess_standin"
    }

    let number: Int
    let standIn: RealtimeStandIn
    let channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>
    private let outgoing: AsyncStream<Outgoing>.Continuation
    private let outgoingStream: AsyncStream<Outgoing>
    private let jobs: AsyncStream<(Stage, String)>.Continuation
    private let jobStream: AsyncStream<(Stage, String)>
    let state: Mutex<State>

    init(number: Int, standIn: RealtimeStandIn, channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>) {
        self.number = number
        self.standIn = standIn
        self.channel = channel
        (outgoingStream, outgoing) = AsyncStream.makeStream(of: Outgoing.self)
        (jobStream, jobs) = AsyncStream.makeStream(of: (Stage, String).self)
        let script = standIn.script
        state = Mutex(
            State(
                silenceMs: script.defaultSilenceMs,
                vad: EnergyVAD(thresholdRMS: script.vadThresholdRMS, startMs: script.vadStartMs, silenceMs: script.defaultSilenceMs)))
    }

    func abort() { channel.channel.close(promise: nil) }

    func outgoingDrop() { outgoing.yield(.drop) }

    func run(authorized: Bool, betaHeader: Bool, model: String?) async {
        state.withLock {
            $0.model = model ?? "gpt-realtime"
            $0.sessionID = "sess_standin_\(number)"
        }
        try? await channel.executeThenClose { inbound, outbound in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await item in self.outgoingStream {
                        switch item {
                        case .frame(let frame): try await outbound.write(frame)
                        case .drop:
                            self.channel.channel.close(promise: nil)
                            return
                        }
                    }
                }
                group.addTask {
                    for await (stage, responseID) in self.jobStream {
                        await self.streamResponse(responseID: responseID, stage: stage)
                    }
                }
                defer { group.cancelAll() }
                if !authorized {
                    emitError(
                        type: "invalid_request_error", code: "invalid_api_key",
                        message: "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.")
                    close(code: 1008, reason: "Incorrect API key provided")
                } else if betaHeader {
                    standIn.reject("OpenAI-Beta header")
                    rejectBeta()
                } else {
                    emit(["type": "session.created", "session": state.withLock { sessionObject($0) }])
                }
                for try await frame in inbound {
                    switch frame.opcode {
                    case .text:
                        handle(text: String(buffer: frame.unmaskedData))
                    case .ping:
                        guard standIn.script.answerPings || number > 1 else { continue }
                        standIn.shared.withLock { $0.answeredPings += 1 }
                        outgoing.yield(.frame(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)))
                    case .connectionClose:
                        if !state.withLock({ $0.closing }) {
                            var data = frame.unmaskedData
                            let code = data.readWebSocketErrorCode() ?? .normalClosure
                            var reply = ByteBuffer()
                            reply.write(webSocketErrorCode: code)
                            try? await outbound.write(WebSocketFrame(fin: true, opcode: .connectionClose, data: reply))
                        }
                        return
                    default:
                        break
                    }
                }
            }
        }
        outgoing.finish()
        jobs.finish()
    }

    // MARK: - Output

    func emit(_ event: JSONValue) {
        guard case .object(var fields) = event else { return }
        let id = state.withLock { state -> Int in
            state.counter += 1
            return state.counter
        }
        fields["event_id"] = .string("event_standin\(number)_\(id)")
        send(text: JSONValue.object(fields).jsonText)
    }

    func send(text: String) {
        outgoing.yield(.frame(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text))))
    }

    func emitError(type: String = "invalid_request_error", code: String, message: String, param: String? = nil, eventID: String? = nil) {
        emit([
            "type": "error",
            "error": [
                "type": .string(type), "code": .string(code), "message": .string(message),
                "param": param.map(JSONValue.string) ?? .null, "event_id": eventID.map(JSONValue.string) ?? .null
            ]
        ])
    }

    func close(code: Int, reason: String) {
        state.withLock { $0.closing = true }
        var data = ByteBuffer()
        data.write(webSocketErrorCode: WebSocketErrorCode(codeNumber: code))
        data.writeString(reason)
        outgoing.yield(.frame(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)))
    }

    private func rejectBeta() {
        emitError(
            code: "beta_api_shape_disabled",
            message: "The Realtime Beta API is no longer supported. Please use /v1/realtime for the GA API.")
        close(code: 4000, reason: "beta_api_shape_disabled")
    }

    private func newID(_ prefix: String) -> String {
        state.withLock { state in
            state.counter += 1
            return "\(prefix)_standin\(number)_\(state.counter)"
        }
    }

    // MARK: - Input

    private func handle(text: String) {
        guard let event = JSONValue.parse(text), let type = event["type"]?.stringValue else {
            standIn.record(RecordedClientEvent(connection: number, type: "<invalid>", json: .null, text: text))
            standIn.reject("invalid JSON")
            emitError(code: "invalid_json", message: "The server could not parse the JSON.")
            return
        }
        standIn.record(RecordedClientEvent(connection: number, type: type, json: event, text: text))
        let eventID = event["event_id"]?.stringValue
        switch RealtimeClientEventValidator.validate(event) {
        case .beta(let what):
            standIn.reject("beta shape: \(what)")
            rejectBeta()
            return
        case .invalid(let code, let message, let param):
            standIn.reject("\(type): \(message)")
            emitError(code: code, message: message, param: param, eventID: eventID)
            return
        case .valid:
            break
        }
        switch type {
        case "session.update": applySessionUpdate(event["session"] ?? .null)
        case "input_audio_buffer.append": append(event["audio"]?.stringValue ?? "")
        case "input_audio_buffer.commit": commit(eventID: eventID)
        case "input_audio_buffer.clear":
            state.withLock {
                $0.bufferedSamples = 0
                $0.vad.reset()
            }
            emit(["type": "input_audio_buffer.cleared"])
        case "conversation.item.create": createItem(event["item"] ?? .null, eventID: eventID)
        case "conversation.item.truncate": truncate(event, eventID: eventID)
        case "conversation.item.delete": delete(event["item_id"]?.stringValue ?? "", eventID: eventID)
        case "conversation.item.retrieve":
            emitError(code: "item_not_found", message: "The stand-in does not keep item audio.", eventID: eventID)
        case "response.create" where event["response"]?["conversation"]?.stringValue == "none":
            // Out of band: never the conversation's active response (so never refused as a second one), and
            // it neither joins nor advances the turn.
            jobs.yield((.outOfBand(text: Self.inputText(event["response"]?["input"])), newID("resp")))
        case "response.create":
            // tool_choice "none" (an announcement read verbatim): the model speaks and calls nothing.
            startResponse(eventID: eventID, speakOnly: event["response"]?["tool_choice"]?.stringValue == "none")
        case "response.cancel":
            let cancelled = state.withLock { state -> Bool in
                guard state.activeResponse != nil else { return false }
                state.cancelReason = "client_cancelled"
                return true
            }
            if !cancelled {
                emitError(code: "response_cancel_not_active", message: "Cancellation failed: no active response found", eventID: eventID)
            }
        case "output_audio_buffer.clear":
            emitError(code: "invalid_value", message: "output_audio_buffer.clear is only supported for WebRTC and SIP.", eventID: eventID)
        default:
            break
        }
    }

    private func applySessionUpdate(_ session: JSONValue) {
        let updated = state.withLock { state -> JSONValue in
            if let instructions = session["instructions"]?.stringValue { state.instructions = instructions }
            if let tools = session["tools"] { state.tools = tools }
            if let input = session["audio"]?["input"] {
                if let detection = input["turn_detection"] {
                    if detection == .null {
                        state.turnDetection = nil
                    } else {
                        let type = detection["type"]?.stringValue ?? "server_vad"
                        state.turnDetection = type
                        if type == "semantic_vad" {
                            switch detection["eagerness"]?.stringValue {
                            case "low": state.silenceMs = 800
                            case "high": state.silenceMs = 250
                            default: state.silenceMs = 500
                            }
                        } else if let silence = detection["silence_duration_ms"]?.numberValue {
                            state.silenceMs = Int(silence)
                        }
                        if case .bool(let create)? = detection["create_response"] { state.createResponse = create }
                        if case .bool(let interrupt)? = detection["interrupt_response"] { state.interruptResponse = interrupt }
                    }
                    state.vad.silenceMs = state.silenceMs
                    state.vad.reset()
                }
                if let transcription = input["transcription"] { state.transcription = transcription }
                if let noise = input["noise_reduction"] { state.noiseReduction = noise }
            }
            if let voice = session["audio"]?["output"]?["voice"]?.stringValue { state.voice = voice }
            return sessionObject(state)
        }
        emit(["type": "session.updated", "session": updated])
    }

    private func sessionObject(_ state: State) -> JSONValue {
        let detection: JSONValue
        switch state.turnDetection {
        case nil: detection = .null
        case "semantic_vad"?:
            detection = [
                "type": "semantic_vad", "eagerness": "auto", "create_response": .bool(state.createResponse),
                "interrupt_response": .bool(state.interruptResponse)
            ]
        default:
            detection = [
                "type": "server_vad", "threshold": 0.5, "prefix_padding_ms": 300, "silence_duration_ms": .number(Double(state.silenceMs)),
                "idle_timeout_ms": .null, "create_response": .bool(state.createResponse), "interrupt_response": .bool(state.interruptResponse)
            ]
        }
        return [
            "type": "realtime", "object": "realtime.session", "id": .string(state.sessionID), "model": .string(state.model),
            "output_modalities": ["audio"], "instructions": .string(state.instructions), "tools": state.tools, "tool_choice": "auto",
            "max_output_tokens": "inf", "tracing": .null, "truncation": "auto", "prompt": .null,
            "expires_at": .number(Double(time(nil) + 3600)), "include": .null,
            "audio": [
                "input": [
                    "format": ["type": "audio/pcm", "rate": 24000], "transcription": state.transcription,
                    "noise_reduction": state.noiseReduction, "turn_detection": detection
                ],
                "output": ["format": ["type": "audio/pcm", "rate": 24000], "voice": .string(state.voice), "speed": 1.0]
            ]
        ]
    }

    private func append(_ audio: String) {
        let samples = Base64.decodeSamples(audio) ?? []
        enum Step {
            case started(Int, String, cancel: Bool)
            case stopped(Int, String, respond: Bool)
        }
        let steps = state.withLock { state -> [Step] in
            state.bufferedSamples += samples.count
            guard state.turnDetection != nil else { return [] }
            var steps: [Step] = []
            for transition in state.vad.feed(samples) {
                switch transition {
                case .started(let start):
                    state.counter += 1
                    let item = "item_standin\(number)_\(state.counter)"
                    state.speechItemID = item
                    let cancel = state.interruptResponse && state.activeResponse != nil
                    if cancel { state.cancelReason = "turn_detected" }
                    steps.append(.started(start, item, cancel: cancel))
                case .stopped(let end):
                    let item = state.speechItemID ?? "item_standin"
                    state.bufferedSamples = 0
                    steps.append(.stopped(end, item, respond: state.createResponse))
                }
            }
            return steps
        }
        for step in steps {
            switch step {
            case .started(let start, let item, _):
                emit(["type": "input_audio_buffer.speech_started", "audio_start_ms": .number(Double(start)), "item_id": .string(item)])
            case .stopped(let end, let item, let respond):
                emit(["type": "input_audio_buffer.speech_stopped", "audio_end_ms": .number(Double(end)), "item_id": .string(item)])
                commitItem(item)
                if respond { startResponse(eventID: nil) }
            }
        }
    }

    private func commit(eventID: String?) {
        let buffered = state.withLock { $0.bufferedSamples }
        let ms = Double(buffered) / 24
        guard ms >= 100 else {
            emitError(
                code: "input_audio_buffer_commit_empty",
                message:
                    "Error committing input audio buffer: buffer too small. Expected at least 100ms of audio, but buffer only has \(ms)ms of audio.",
                eventID: eventID)
            return
        }
        state.withLock { $0.bufferedSamples = 0 }
        commitItem(newID("item"))
    }

    private func commitItem(_ item: String) {
        let previous = addItem(item)
        emit(["type": "input_audio_buffer.committed", "item_id": .string(item), "previous_item_id": previous.map(JSONValue.string) ?? .null])
        let userItem: JSONValue = [
            "id": .string(item), "type": "message", "role": "user", "status": "completed", "object": "realtime.item",
            "content": [["type": "input_audio", "transcript": .null]]
        ]
        emit(["type": "conversation.item.added", "previous_item_id": previous.map(JSONValue.string) ?? .null, "item": userItem])
        emit(["type": "conversation.item.done", "previous_item_id": previous.map(JSONValue.string) ?? .null, "item": userItem])
    }

    private func createItem(_ item: JSONValue, eventID: String?) {
        let id = newID("item")
        guard case .object(var fields) = item else { return }
        fields["id"] = .string(id)
        fields["status"] = "completed"
        fields["object"] = "realtime.item"
        if item["type"]?.stringValue == "function_call_output" {
            let calls = standIn.script.turnCalls
            guard let index = calls.firstIndex(where: { $0.callID == item["call_id"]?.stringValue }) else {
                emitError(code: "invalid_value", message: "No tool call found for the call_id.", param: "item.call_id", eventID: eventID)
                return
            }
            state.withLock { $0.stage = index + 1 < calls.count ? .functionCall(index + 1) : .answer }
        }
        let previous = addItem(id)
        emit(["type": "conversation.item.added", "previous_item_id": previous.map(JSONValue.string) ?? .null, "item": .object(fields)])
        emit(["type": "conversation.item.done", "previous_item_id": previous.map(JSONValue.string) ?? .null, "item": .object(fields)])
    }

    private func truncate(_ event: JSONValue, eventID: String?) {
        let item = event["item_id"]?.stringValue ?? ""
        let end = Int(event["audio_end_ms"]?.numberValue ?? 0)
        guard let received = state.withLock({ $0.assistantAudioMs[item] }) else {
            emitError(code: "invalid_value", message: "Item with item_id '\(item)' not found.", param: "item_id", eventID: eventID)
            return
        }
        guard end <= received else {
            emitError(
                code: "invalid_value", message: "Audio content of \(received)ms is already shorter than \(end)ms", param: "audio_end_ms",
                eventID: eventID)
            return
        }
        emit(["type": "conversation.item.truncated", "item_id": .string(item), "content_index": 0, "audio_end_ms": .number(Double(end))])
    }

    /// Adds an item at the conversation's end; returns the item before it.
    func addItem(_ id: String) -> String? {
        state.withLock { state in
            defer {
                state.lastItemID = id
                state.items.insert(id)
            }
            return state.lastItemID
        }
    }

    private func delete(_ item: String, eventID: String?) {
        let known = state.withLock { state -> Bool in
            guard state.items.remove(item) != nil else { return false }
            state.assistantAudioMs[item] = nil
            return true
        }
        guard known else {
            emitError(
                code: "item_delete_invalid_item_id", message: "Error deleting item: the item with id '\(item)' does not exist.",
                param: "item_id", eventID: eventID)
            return
        }
        emit(["type": "conversation.item.deleted", "item_id": .string(item)])
    }

    private func startResponse(eventID: String?, speakOnly: Bool = false) {
        let id = newID("resp")
        let result = state.withLock { state -> (active: String?, stage: Stage) in
            if let active = state.activeResponse { return (active, state.stage) }
            state.activeResponse = id
            state.cancelReason = nil
            return (nil, state.stage)
        }
        if let active = result.active {
            emitError(
                code: "conversation_already_has_active_response",
                message:
                    "Conversation already has an active response in progress: \(active). Wait until the response is finished before creating a new one.",
                eventID: eventID)
            return
        }
        jobs.yield((speakOnly ? .answer : result.stage, id))
    }

    /// The text of a response's `input` messages, what a model told to read them would say.
    static func inputText(_ input: JSONValue?) -> String {
        guard case .array(let items)? = input else { return "" }
        var parts: [String] = []
        for item in items {
            guard case .array(let content)? = item["content"] else { continue }
            parts += content.compactMap { $0["text"]?.stringValue }
        }
        return parts.joined(separator: " ")
    }

    // MARK: - Performed actions

    func perform(_ action: RealtimeStandInAction) async {
        switch action {
        case .error(let code, let message): emitError(code: code, message: message)
        case .malformedJSON: send(text: #"{"type":"response.output_audio.delta","delta":"#)
        case .unknownEvent(let type): emit(["type": .string(type), "standin_field": 1])
        case .malformedEvent(let type): emit(["type": .string(type)])
        case .dropConnection: outgoing.yield(.drop)
        case .expireSession:
            emitError(code: "session_expired", message: "Your session hit the maximum duration of 60 minutes.")
            close(code: 1001, reason: "Your session hit the maximum duration of 60 minutes.")
        case .close(let code, let reason): close(code: code, reason: reason)
        }
    }
}
