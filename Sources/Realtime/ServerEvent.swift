/// GA server events the appliance reacts to; everything else decodes to `.unknown(type)`.
public enum ServerEvent: Sendable, Equatable {
    case sessionCreated(SessionInfo)
    case sessionUpdated(SessionInfo)
    case error(RealtimeError)
    case speechStarted(audioStartMs: Int, itemID: String)
    case speechStopped(audioEndMs: Int, itemID: String)
    case inputAudioBufferCommitted(itemID: String, previousItemID: String?)
    case inputAudioBufferCleared
    case conversationItemAdded(ItemInfo)
    case conversationItemDone(ItemInfo)
    case conversationItemTruncated(itemID: String, contentIndex: Int, audioEndMs: Int)
    case inputAudioTranscriptionCompleted(itemID: String, transcript: String)
    case responseCreated(ResponseInfo)
    case outputItemAdded(responseID: String, item: ItemInfo)
    case outputItemDone(responseID: String, item: ItemInfo)
    case outputAudioDelta(AudioDelta)
    case outputAudioDone(responseID: String, itemID: String)
    case outputAudioTranscriptDelta(responseID: String, itemID: String, delta: String)
    case outputAudioTranscriptDone(responseID: String, itemID: String, transcript: String)
    case functionCallArgumentsDelta(responseID: String, callID: String, delta: String)
    case functionCallArgumentsDone(FunctionCall)
    case responseDone(ResponseInfo)
    case rateLimitsUpdated([RateLimit])
    case unknown(type: String)
}

extension ServerEvent: Decodable {
    enum CodingKeys: String, CodingKey {
        case type, session, error, item, response, delta, transcript, name, arguments
        case audioStartMs = "audio_start_ms"
        case audioEndMs = "audio_end_ms"
        case itemID = "item_id"
        case previousItemID = "previous_item_id"
        case contentIndex = "content_index"
        case outputIndex = "output_index"
        case responseID = "response_id"
        case callID = "call_id"
        case rateLimits = "rate_limits"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let type = try c.decode(String.self, forKey: .type)
        func string(_ key: CodingKeys) throws -> String { try c.decode(String.self, forKey: key) }
        func optionalString(_ key: CodingKeys) -> String? { (try? c.decodeIfPresent(String.self, forKey: key)) ?? nil }
        func int(_ key: CodingKeys) -> Int { ((try? c.decodeIfPresent(Int.self, forKey: key)) ?? nil) ?? 0 }

        switch type {
        case "session.created": self = .sessionCreated(try c.decode(SessionInfo.self, forKey: .session))
        case "session.updated": self = .sessionUpdated(try c.decode(SessionInfo.self, forKey: .session))
        case "error": self = .error(try c.decode(RealtimeError.self, forKey: .error))
        case "input_audio_buffer.speech_started":
            self = .speechStarted(audioStartMs: int(.audioStartMs), itemID: optionalString(.itemID) ?? "")
        case "input_audio_buffer.speech_stopped":
            self = .speechStopped(audioEndMs: int(.audioEndMs), itemID: optionalString(.itemID) ?? "")
        case "input_audio_buffer.committed":
            self = .inputAudioBufferCommitted(itemID: optionalString(.itemID) ?? "", previousItemID: optionalString(.previousItemID))
        case "input_audio_buffer.cleared": self = .inputAudioBufferCleared
        case "conversation.item.added": self = .conversationItemAdded(try c.decode(ItemInfo.self, forKey: .item))
        case "conversation.item.done": self = .conversationItemDone(try c.decode(ItemInfo.self, forKey: .item))
        case "conversation.item.truncated":
            self = .conversationItemTruncated(itemID: try string(.itemID), contentIndex: int(.contentIndex), audioEndMs: int(.audioEndMs))
        case "conversation.item.input_audio_transcription.completed":
            self = .inputAudioTranscriptionCompleted(itemID: optionalString(.itemID) ?? "", transcript: optionalString(.transcript) ?? "")
        case "response.created": self = .responseCreated(try c.decode(ResponseInfo.self, forKey: .response))
        case "response.done": self = .responseDone(try c.decode(ResponseInfo.self, forKey: .response))
        case "response.output_item.added":
            self = .outputItemAdded(responseID: optionalString(.responseID) ?? "", item: try c.decode(ItemInfo.self, forKey: .item))
        case "response.output_item.done":
            self = .outputItemDone(responseID: optionalString(.responseID) ?? "", item: try c.decode(ItemInfo.self, forKey: .item))
        case "response.output_audio.delta":
            self = .outputAudioDelta(
                AudioDelta(
                    responseID: optionalString(.responseID) ?? "", itemID: try string(.itemID),
                    outputIndex: int(.outputIndex), contentIndex: int(.contentIndex), delta: try string(.delta)))
        case "response.output_audio.done":
            self = .outputAudioDone(responseID: optionalString(.responseID) ?? "", itemID: try string(.itemID))
        case "response.output_audio_transcript.delta":
            self = .outputAudioTranscriptDelta(
                responseID: optionalString(.responseID) ?? "", itemID: optionalString(.itemID) ?? "", delta: optionalString(.delta) ?? "")
        case "response.output_audio_transcript.done":
            self = .outputAudioTranscriptDone(
                responseID: optionalString(.responseID) ?? "", itemID: optionalString(.itemID) ?? "",
                transcript: optionalString(.transcript) ?? "")
        case "response.function_call_arguments.delta":
            self = .functionCallArgumentsDelta(
                responseID: optionalString(.responseID) ?? "", callID: optionalString(.callID) ?? "", delta: optionalString(.delta) ?? "")
        case "response.function_call_arguments.done":
            self = .functionCallArgumentsDone(
                FunctionCall(
                    responseID: optionalString(.responseID), itemID: optionalString(.itemID), callID: try string(.callID),
                    name: optionalString(.name) ?? "", arguments: optionalString(.arguments) ?? ""))
        case "rate_limits.updated":
            self = .rateLimitsUpdated((try? c.decodeIfPresent([RateLimit].self, forKey: .rateLimits)) ?? [])
        default:
            self = .unknown(type: type)
        }
    }

    /// The wire `type` (for logs and counters).
    public var type: String {
        switch self {
        case .sessionCreated: "session.created"
        case .sessionUpdated: "session.updated"
        case .error: "error"
        case .speechStarted: "input_audio_buffer.speech_started"
        case .speechStopped: "input_audio_buffer.speech_stopped"
        case .inputAudioBufferCommitted: "input_audio_buffer.committed"
        case .inputAudioBufferCleared: "input_audio_buffer.cleared"
        case .conversationItemAdded: "conversation.item.added"
        case .conversationItemDone: "conversation.item.done"
        case .conversationItemTruncated: "conversation.item.truncated"
        case .inputAudioTranscriptionCompleted: "conversation.item.input_audio_transcription.completed"
        case .responseCreated: "response.created"
        case .outputItemAdded: "response.output_item.added"
        case .outputItemDone: "response.output_item.done"
        case .outputAudioDelta: "response.output_audio.delta"
        case .outputAudioDone: "response.output_audio.done"
        case .outputAudioTranscriptDelta: "response.output_audio_transcript.delta"
        case .outputAudioTranscriptDone: "response.output_audio_transcript.done"
        case .functionCallArgumentsDelta: "response.function_call_arguments.delta"
        case .functionCallArgumentsDone: "response.function_call_arguments.done"
        case .responseDone: "response.done"
        case .rateLimitsUpdated: "rate_limits.updated"
        case .unknown(let type): type
        }
    }
}
