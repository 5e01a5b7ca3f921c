import Basics
import Realtime

/// Checks a client event against the GA shapes the real API accepts (see the protocol reference §2, §3, §10).
/// Beta names and flat beta `session` fields are a distinct verdict: the real server answers them with
/// `beta_api_shape_disabled` and close 4000.
enum RealtimeClientEventValidator {
    enum Verdict: Equatable {
        case valid
        case beta(String)
        case invalid(code: String, message: String, param: String?)
    }

    static let gaTypes: Set<String> = [
        "session.update", "input_audio_buffer.append", "input_audio_buffer.commit", "input_audio_buffer.clear",
        "conversation.item.create", "conversation.item.truncate", "conversation.item.delete", "conversation.item.retrieve",
        "response.create", "response.cancel", "output_audio_buffer.clear"
    ]
    static let betaTypes: Set<String> = ["transcription_session.update"]
    static let betaSessionKeys: Set<String> = [
        "voice", "input_audio_format", "output_audio_format", "turn_detection", "input_audio_transcription",
        "input_audio_noise_reduction", "modalities", "temperature", "max_response_output_tokens", "speed"
    ]
    static let gaSessionKeys: Set<String> = [
        "type", "audio", "include", "instructions", "max_output_tokens", "model", "output_modalities", "parallel_tool_calls",
        "prompt", "reasoning", "tool_choice", "tools", "tracing", "truncation"
    ]
    static let voices: Set<String> = ["alloy", "ash", "ballad", "coral", "echo", "sage", "shimmer", "verse", "marin", "cedar"]

    static func validate(_ event: JSONValue) -> Verdict {
        guard case .object(let fields) = event, let type = fields["type"]?.stringValue else {
            return .invalid(code: "invalid_json", message: "The server could not parse the event: missing 'type'.", param: nil)
        }
        if betaTypes.contains(type) { return .beta(type) }
        guard gaTypes.contains(type) else {
            return .invalid(code: "invalid_value", message: "Invalid value: '\(type)'. Supported values are: \(gaTypes.sorted()).", param: "type")
        }
        if let eventID = fields["event_id"], eventID.stringValue == nil {
            return .invalid(code: "invalid_type", message: "event_id must be a string", param: "event_id")
        }
        func unknownKeys(_ allowed: Set<String>) -> Verdict? {
            let extra = Set(fields.keys).subtracting(allowed.union(["type", "event_id"]))
            return extra.isEmpty
                ? nil : .invalid(code: "unknown_parameter", message: "Unknown parameter: '\(extra.sorted()[0])'.", param: extra.sorted()[0])
        }
        switch type {
        case "session.update":
            if let bad = unknownKeys(["session"]) { return bad }
            return validateSession(fields["session"])
        case "input_audio_buffer.append":
            if let bad = unknownKeys(["audio"]) { return bad }
            guard let audio = fields["audio"]?.stringValue, let bytes = Base64.decode(audio) else {
                return .invalid(code: "invalid_value", message: "audio must be base64 text", param: "audio")
            }
            if bytes.count % 2 != 0 { return .invalid(code: "invalid_value", message: "audio/pcm needs whole 16-bit samples", param: "audio") }
            if bytes.count > 15 << 20 { return .invalid(code: "invalid_value", message: "audio exceeds 15 MiB", param: "audio") }
            return .valid
        case "input_audio_buffer.commit", "input_audio_buffer.clear", "output_audio_buffer.clear":
            return unknownKeys([]) ?? .valid
        case "conversation.item.create":
            if let bad = unknownKeys(["item", "previous_item_id"]) { return bad }
            return validateItem(fields["item"])
        case "conversation.item.truncate":
            if let bad = unknownKeys(["item_id", "content_index", "audio_end_ms"]) { return bad }
            guard fields["item_id"]?.stringValue != nil else { return missing("item_id") }
            guard let index = fields["content_index"]?.numberValue, index == index.rounded() else { return missing("content_index") }
            guard let end = fields["audio_end_ms"]?.numberValue, end >= 0, end == end.rounded() else {
                return .invalid(code: "invalid_value", message: "audio_end_ms must be a non-negative integer", param: "audio_end_ms")
            }
            return .valid
        case "conversation.item.delete", "conversation.item.retrieve":
            if let bad = unknownKeys(["item_id"]) { return bad }
            return fields["item_id"]?.stringValue != nil ? .valid : missing("item_id")
        case "response.create":
            if let bad = unknownKeys(["response"]) { return bad }
            guard let response = fields["response"], response != .null else { return .valid }
            guard case .object(let options) = response else {
                return .invalid(code: "invalid_type", message: "response must be an object", param: "response")
            }
            if options["modalities"] != nil || options["voice"] != nil || options["temperature"] != nil { return .beta("response.create.response") }
            let allowed: Set<String> = [
                "audio", "conversation", "input", "instructions", "max_output_tokens", "metadata", "output_modalities", "tools",
                "tool_choice", "prompt", "reasoning", "parallel_tool_calls"
            ]
            if let extra = Set(options.keys).subtracting(allowed).sorted().first {
                return .invalid(code: "unknown_parameter", message: "Unknown parameter: 'response.\(extra)'.", param: "response.\(extra)")
            }
            return validateResponseOptions(options)
        case "response.cancel":
            if let bad = unknownKeys(["response_id"]) { return bad }
            if let id = fields["response_id"], id.stringValue == nil {
                return .invalid(code: "invalid_type", message: "response_id must be a string", param: "response_id")
            }
            return .valid
        default:
            return .valid
        }
    }

    /// The fields of `response.create.response` by the SDK's `RealtimeResponseCreateParams`.
    private static func validateResponseOptions(_ options: [String: JSONValue]) -> Verdict {
        if let conversation = options["conversation"], conversation.stringValue != "auto" && conversation.stringValue != "none" {
            return .invalid(
                code: "invalid_value", message: "Invalid value for 'response.conversation': expected 'auto' or 'none'.",
                param: "response.conversation")
        }
        if let instructions = options["instructions"], instructions.stringValue == nil {
            return .invalid(
                code: "invalid_type", message: "Invalid type for 'response.instructions': expected a string.", param: "response.instructions")
        }
        if let modalities = options["output_modalities"], modalities != .array(["audio"]) && modalities != .array(["text"]) {
            return .invalid(code: "invalid_value", message: "output_modalities must be ['audio'] or ['text']", param: "response.output_modalities")
        }
        if let choice = options["tool_choice"], let mode = choice.stringValue, !["auto", "none", "required"].contains(mode) {
            return .invalid(code: "invalid_value", message: "Invalid value: '\(mode)'.", param: "response.tool_choice")
        }
        if let limit = options["max_output_tokens"], limit.stringValue != "inf" {
            guard let tokens = limit.numberValue, tokens == tokens.rounded(), (1...4096).contains(tokens) else {
                return .invalid(
                    code: "invalid_value", message: "max_output_tokens must be an integer from 1 to 4096 or 'inf'",
                    param: "response.max_output_tokens")
            }
        }
        if let input = options["input"] {
            guard case .array(let items) = input else {
                return .invalid(code: "invalid_type", message: "Invalid type for 'response.input': expected an array.", param: "response.input")
            }
            for item in items {
                if item["type"]?.stringValue == "item_reference" {
                    guard item["id"]?.stringValue != nil else { return missing("response.input.id") }
                    continue
                }
                if case .invalid(let code, let message, _) = validateItem(item) {
                    return .invalid(code: code, message: message, param: "response.input")
                }
            }
        }
        if let audio = options["audio"] {
            guard case .object(let fields) = audio, Set(fields.keys).isSubset(of: ["output"]) else {
                return .invalid(code: "unknown_parameter", message: "response.audio takes only 'output'", param: "response.audio")
            }
            if case .object(let output)? = fields["output"] {
                if let extra = Set(output.keys).subtracting(["format", "voice"]).sorted().first {
                    return .invalid(
                        code: "unknown_parameter", message: "Unknown parameter: 'response.audio.output.\(extra)'.",
                        param: "response.audio.output.\(extra)")
                }
                if let format = output["format"], let bad = validateFormat(format, "response.audio.output.format") { return bad }
                if let voice = output["voice"]?.stringValue, !voices.contains(voice) {
                    return .invalid(code: "invalid_value", message: "Invalid value: '\(voice)'.", param: "response.audio.output.voice")
                }
            }
        }
        return .valid
    }

    private static func missing(_ param: String) -> Verdict {
        .invalid(code: "missing_required_parameter", message: "Missing required parameter: '\(param)'.", param: param)
    }

    private static func validateSession(_ session: JSONValue?) -> Verdict {
        guard case .object(let fields)? = session else { return missing("session") }
        if let beta = fields.keys.first(where: betaSessionKeys.contains) { return .beta("session.\(beta)") }
        guard let type = fields["type"]?.stringValue else { return .beta("session without type") }
        guard type == "realtime" || type == "transcription" else {
            return .invalid(
                code: "invalid_value", message: "Invalid value: '\(type)'. Supported values are: 'realtime' and 'transcription'.",
                param: "session.type")
        }
        if let extra = Set(fields.keys).subtracting(gaSessionKeys).sorted().first {
            return .invalid(code: "unknown_parameter", message: "Unknown parameter: 'session.\(extra)'.", param: "session.\(extra)")
        }
        if let modalities = fields["output_modalities"] {
            guard modalities == .array(["audio"]) || modalities == .array(["text"]) else {
                return .invalid(code: "invalid_value", message: "output_modalities must be ['audio'] or ['text']", param: "session.output_modalities")
            }
        }
        if case .object(let audio)? = fields["audio"] {
            if let extra = Set(audio.keys).subtracting(["input", "output"]).sorted().first {
                return .invalid(code: "unknown_parameter", message: "Unknown parameter: 'session.audio.\(extra)'.", param: "session.audio.\(extra)")
            }
            if case .object(let input)? = audio["input"] {
                if let extra = Set(input.keys).subtracting(["format", "turn_detection", "transcription", "noise_reduction"]).sorted().first {
                    return .invalid(
                        code: "unknown_parameter", message: "Unknown parameter: 'session.audio.input.\(extra)'.",
                        param: "session.audio.input.\(extra)")
                }
                if let format = input["format"], let bad = validateFormat(format, "session.audio.input.format") { return bad }
                if let detection = input["turn_detection"], detection != .null {
                    let type = detection["type"]?.stringValue
                    guard type == "server_vad" || type == "semantic_vad" else {
                        return .invalid(
                            code: "invalid_value", message: "turn_detection.type must be server_vad or semantic_vad",
                            param: "session.audio.input.turn_detection.type")
                    }
                    if let idle = detection["idle_timeout_ms"]?.numberValue, !(5000...30000).contains(idle) {
                        return .invalid(
                            code: "integer_out_of_range", message: "idle_timeout_ms must be between 5000 and 30000",
                            param: "session.audio.input.turn_detection.idle_timeout_ms")
                    }
                }
            }
            if case .object(let output)? = audio["output"] {
                if let extra = Set(output.keys).subtracting(["format", "voice", "speed"]).sorted().first {
                    return .invalid(
                        code: "unknown_parameter", message: "Unknown parameter: 'session.audio.output.\(extra)'.",
                        param: "session.audio.output.\(extra)")
                }
                if let format = output["format"], let bad = validateFormat(format, "session.audio.output.format") { return bad }
                if let voice = output["voice"]?.stringValue, !voices.contains(voice) {
                    return .invalid(code: "invalid_value", message: "Invalid value: '\(voice)'.", param: "session.audio.output.voice")
                }
            }
        }
        if case .array(let tools)? = fields["tools"] {
            for tool in tools where tool["type"]?.stringValue != "function" || tool["name"]?.stringValue == nil {
                return .invalid(code: "invalid_value", message: "tools entries need type 'function' and a name", param: "session.tools")
            }
        }
        return .valid
    }

    private static func validateFormat(_ format: JSONValue, _ param: String) -> Verdict? {
        switch format["type"]?.stringValue {
        case "audio/pcm":
            if let rate = format["rate"]?.numberValue, rate != 24000 {
                return .invalid(code: "invalid_value", message: "Only a 24kHz sample rate is supported", param: "\(param).rate")
            }
            return nil
        case "audio/pcmu", "audio/pcma": return nil
        default: return .invalid(code: "invalid_value", message: "Invalid audio format", param: param)
        }
    }

    private static func validateItem(_ item: JSONValue?) -> Verdict {
        guard let item, case .object = item, let type = item["type"]?.stringValue else { return missing("item") }
        switch type {
        case "function_call_output":
            guard item["call_id"]?.stringValue != nil else { return missing("item.call_id") }
            guard item["output"]?.stringValue != nil else {
                return .invalid(code: "invalid_type", message: "Invalid type for 'item.output': expected a string.", param: "item.output")
            }
            return .valid
        case "message":
            guard let role = item["role"]?.stringValue, ["user", "system", "assistant"].contains(role) else { return missing("item.role") }
            guard case .array(let content)? = item["content"], !content.isEmpty else { return missing("item.content") }
            for part in content {
                guard let partType = part["type"]?.stringValue, ["input_text", "input_audio", "input_image", "output_text"].contains(partType) else {
                    return .invalid(code: "invalid_value", message: "Invalid content part type", param: "item.content")
                }
            }
            return .valid
        case "function_call":
            return item["call_id"]?.stringValue != nil && item["name"]?.stringValue != nil ? .valid : missing("item.call_id")
        default:
            return .invalid(code: "invalid_value", message: "Invalid value: '\(type)'.", param: "item.type")
        }
    }
}
