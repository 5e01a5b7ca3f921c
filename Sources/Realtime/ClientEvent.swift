import FoundationEssentials

/// The GA client events this appliance sends. Encoding produces exactly the GA wire shapes.
public enum ClientEvent: Sendable, Equatable, Encodable {
    case sessionUpdate(SessionConfiguration)
    /// `audio`: base64 PCM16 LE, 24 kHz mono (see `Base64.encode(samples:)`).
    case inputAudioBufferAppend(audio: String)
    case inputAudioBufferCommit
    case inputAudioBufferClear
    case conversationItemCreate(ConversationItem)
    /// `audioEndMs`: milliseconds of the assistant item's audio actually played (clamped to what was received).
    case conversationItemTruncate(itemID: String, contentIndex: Int, audioEndMs: Int)
    /// Removes an item from the conversation (a user turn the server VAD committed from the speaker's echo).
    case conversationItemDelete(itemID: String)
    case responseCreate(ResponseOptions?)
    case responseCancel(responseID: String?)

    public var type: String {
        switch self {
        case .sessionUpdate: "session.update"
        case .inputAudioBufferAppend: "input_audio_buffer.append"
        case .inputAudioBufferCommit: "input_audio_buffer.commit"
        case .inputAudioBufferClear: "input_audio_buffer.clear"
        case .conversationItemCreate: "conversation.item.create"
        case .conversationItemTruncate: "conversation.item.truncate"
        case .conversationItemDelete: "conversation.item.delete"
        case .responseCreate: "response.create"
        case .responseCancel: "response.cancel"
        }
    }

    enum CodingKeys: String, CodingKey {
        case type, session, audio, item, response
        case itemID = "item_id"
        case contentIndex = "content_index"
        case audioEndMs = "audio_end_ms"
        case responseID = "response_id"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        switch self {
        case .sessionUpdate(let session): try container.encode(session, forKey: .session)
        case .inputAudioBufferAppend(let audio): try container.encode(audio, forKey: .audio)
        case .inputAudioBufferCommit, .inputAudioBufferClear: break
        case .conversationItemCreate(let item): try container.encode(item, forKey: .item)
        case .conversationItemTruncate(let itemID, let contentIndex, let audioEndMs):
            try container.encode(itemID, forKey: .itemID)
            try container.encode(contentIndex, forKey: .contentIndex)
            try container.encode(audioEndMs, forKey: .audioEndMs)
        case .conversationItemDelete(let itemID): try container.encode(itemID, forKey: .itemID)
        case .responseCreate(let options): try container.encodeIfPresent(options, forKey: .response)
        case .responseCancel(let responseID): try container.encodeIfPresent(responseID, forKey: .responseID)
        }
    }

    /// One WebSocket text frame. `eventID` is echoed by the server in `error.event_id` if this event fails.
    public func jsonText(eventID: String? = nil) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding these value types cannot fail (no non-finite numbers are produced by the builders).
        guard let data = try? encoder.encode(Message(event: self, eventID: eventID)) else {
            return #"{"type":"\#(type)"}"#
        }
        return String(decoding: data, as: UTF8.self)
    }

    private struct Message: Encodable {
        let event: ClientEvent
        let eventID: String?

        enum CodingKeys: String, CodingKey { case eventID = "event_id" }

        func encode(to encoder: any Encoder) throws {
            try event.encode(to: encoder)
            if let eventID {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(eventID, forKey: .eventID)
            }
        }
    }
}

/// Items the client creates: user/system text messages and function call outputs.
public enum ConversationItem: Sendable, Equatable, Encodable {
    public enum Role: String, Sendable, Equatable { case user, system }

    case message(role: Role, text: String)
    /// `output` is a string; JSON-encode structured results.
    case functionCallOutput(callID: String, output: String)

    enum CodingKeys: String, CodingKey {
        case type, role, content, output, text
        case callID = "call_id"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .message(let role, let text):
            try container.encode("message", forKey: .type)
            try container.encode(role.rawValue, forKey: .role)
            var content = container.nestedUnkeyedContainer(forKey: .content)
            var part = content.nestedContainer(keyedBy: CodingKeys.self)
            try part.encode("input_text", forKey: .type)
            try part.encode(text, forKey: .text)
        case .functionCallOutput(let callID, let output):
            try container.encode("function_call_output", forKey: .type)
            try container.encode(callID, forKey: .callID)
            try container.encode(output, forKey: .output)
        }
    }
}

/// Per-response overrides for `response.create`.
public struct ResponseOptions: Sendable, Equatable, Encodable {
    public var instructions: String?
    public var toolChoice: ToolChoice?
    public var outputModalities: [String]?
    /// `.outOfBand` (`"none"`): the response writes nothing to the conversation.
    public var conversation: ResponseConversation?
    /// The response's whole context instead of the conversation's items.
    public var input: [ConversationItem]?

    public init(
        instructions: String? = nil, toolChoice: ToolChoice? = nil, outputModalities: [String]? = nil,
        conversation: ResponseConversation? = nil, input: [ConversationItem]? = nil
    ) {
        self.instructions = instructions
        self.toolChoice = toolChoice
        self.outputModalities = outputModalities
        self.conversation = conversation
        self.input = input
    }

    enum CodingKeys: String, CodingKey {
        case instructions, conversation, input
        case toolChoice = "tool_choice"
        case outputModalities = "output_modalities"
    }
}

/// `response.create`'s `conversation`: whether the response's items join the session's conversation.
public enum ResponseConversation: String, Sendable, Equatable, Encodable {
    /// `"auto"`: the default conversation (what a response without the field does).
    case auto
    /// `"none"`: out of band; nothing is added to the conversation.
    case outOfBand = "none"
}
