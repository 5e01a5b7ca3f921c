/// Payloads of server events. Every field not needed by the appliance is ignored; absent optional data
/// decodes to nil or zero so that live frames with extra or missing detail never fail.

/// The parts of `session.created` / `session.updated` the appliance looks at.
public struct SessionInfo: Sendable, Equatable, Decodable {
    public var id: String?
    public var model: String?
    /// Unix seconds; the hard 60-minute deadline.
    public var expiresAt: Int?
    /// `server_vad`, `semantic_vad`, or nil when turn detection is off.
    public var turnDetectionType: String?
    public var voice: String?

    public init(id: String? = nil, model: String? = nil, expiresAt: Int? = nil, turnDetectionType: String? = nil, voice: String? = nil) {
        self.id = id
        self.model = model
        self.expiresAt = expiresAt
        self.turnDetectionType = turnDetectionType
        self.voice = voice
    }

    enum CodingKeys: String, CodingKey {
        case id, model, audio, input, output, type, voice
        case expiresAt = "expires_at"
        case turnDetection = "turn_detection"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try? container.decodeIfPresent(String.self, forKey: .id)
        model = try? container.decodeIfPresent(String.self, forKey: .model)
        expiresAt = try? container.decodeIfPresent(Int.self, forKey: .expiresAt)
        let audio = try? container.nestedContainer(keyedBy: CodingKeys.self, forKey: .audio)
        let input = try? audio?.nestedContainer(keyedBy: CodingKeys.self, forKey: .input)
        let turn = try? input?.nestedContainer(keyedBy: CodingKeys.self, forKey: .turnDetection)
        turnDetectionType = try? turn?.decodeIfPresent(String.self, forKey: .type)
        let output = try? audio?.nestedContainer(keyedBy: CodingKeys.self, forKey: .output)
        voice = try? output?.decodeIfPresent(String.self, forKey: .voice)
    }
}

/// `error.error`.
public struct RealtimeError: Sendable, Equatable, Decodable, CustomStringConvertible {
    public var type: String?
    public var code: String?
    public var message: String
    public var param: String?
    /// The client `event_id` of the event that failed, when the client set one.
    public var eventID: String?

    public init(type: String? = nil, code: String? = nil, message: String, param: String? = nil, eventID: String? = nil) {
        self.type = type
        self.code = code
        self.message = message
        self.param = param
        self.eventID = eventID
    }

    enum CodingKeys: String, CodingKey {
        case type, code, message, param
        case eventID = "event_id"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try? container.decodeIfPresent(String.self, forKey: .type)
        code = try? container.decodeIfPresent(String.self, forKey: .code)
        message = (try? container.decodeIfPresent(String.self, forKey: .message)) ?? ""
        param = try? container.decodeIfPresent(String.self, forKey: .param)
        eventID = try? container.decodeIfPresent(String.self, forKey: .eventID)
    }

    public var description: String {
        "Realtime API error \(code ?? type ?? "unknown"): \(message)"
    }

    /// Errors that are expected races or no-ops, never a reason to tear down the session.
    public static let benignCodes: Set<String> = [
        "conversation_already_has_active_response", "input_audio_buffer_commit_empty", "response_cancel_not_active"
    ]

    public var isBenign: Bool { code.map(Self.benignCodes.contains) ?? false }
}

/// A conversation or response output item (message or function call), as far as the appliance needs it.
public struct ItemInfo: Sendable, Equatable, Decodable {
    public var id: String?
    public var type: String
    public var role: String?
    public var status: String?
    public var callID: String?
    public var name: String?
    public var arguments: String?

    public init(
        id: String? = nil, type: String, role: String? = nil, status: String? = nil, callID: String? = nil,
        name: String? = nil, arguments: String? = nil
    ) {
        self.id = id
        self.type = type
        self.role = role
        self.status = status
        self.callID = callID
        self.name = name
        self.arguments = arguments
    }

    enum CodingKeys: String, CodingKey {
        case id, type, role, status, name, arguments
        case callID = "call_id"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try? container.decodeIfPresent(String.self, forKey: .id)
        type = (try? container.decodeIfPresent(String.self, forKey: .type)) ?? "unknown"
        role = try? container.decodeIfPresent(String.self, forKey: .role)
        status = try? container.decodeIfPresent(String.self, forKey: .status)
        callID = try? container.decodeIfPresent(String.self, forKey: .callID)
        name = try? container.decodeIfPresent(String.self, forKey: .name)
        arguments = try? container.decodeIfPresent(String.self, forKey: .arguments)
    }

    /// The completed function call this item describes, if it is one.
    public var functionCall: FunctionCall? {
        guard type == "function_call", let callID, let name else { return nil }
        return FunctionCall(responseID: nil, itemID: id, callID: callID, name: name, arguments: arguments ?? "")
    }
}

/// `response.function_call_arguments.done` (or a function_call output item).
public struct FunctionCall: Sendable, Equatable {
    public var responseID: String?
    public var itemID: String?
    public var callID: String
    public var name: String
    /// A JSON object as a string.
    public var arguments: String

    public init(responseID: String?, itemID: String?, callID: String, name: String, arguments: String) {
        self.responseID = responseID
        self.itemID = itemID
        self.callID = callID
        self.name = name
        self.arguments = arguments
    }
}

/// `response` of `response.created` / `response.done`.
public struct ResponseInfo: Sendable, Equatable, Decodable {
    public var id: String?
    /// `completed | cancelled | failed | incomplete | in_progress`.
    public var status: String
    /// `turn_detected`, `client_cancelled`, `max_output_tokens`, `content_filter`, ...
    public var statusReason: String?
    public var statusError: String?
    public var output: [ItemInfo]
    public var usage: Usage?

    public init(
        id: String?, status: String, statusReason: String? = nil, statusError: String? = nil, output: [ItemInfo] = [],
        usage: Usage? = nil
    ) {
        self.id = id
        self.status = status
        self.statusReason = statusReason
        self.statusError = statusError
        self.output = output
        self.usage = usage
    }

    enum CodingKeys: String, CodingKey {
        case id, status, output, usage, reason, error, message, code
        case statusDetails = "status_details"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try? container.decodeIfPresent(String.self, forKey: .id)
        status = (try? container.decodeIfPresent(String.self, forKey: .status)) ?? "unknown"
        let details = try? container.nestedContainer(keyedBy: CodingKeys.self, forKey: .statusDetails)
        statusReason = try? details?.decodeIfPresent(String.self, forKey: .reason)
        let error = try? details?.nestedContainer(keyedBy: CodingKeys.self, forKey: .error)
        statusError =
            (try? error?.decodeIfPresent(String.self, forKey: .message))
            ?? (try? error?.decodeIfPresent(String.self, forKey: .code))
        output = (try? container.decodeIfPresent([ItemInfo].self, forKey: .output)) ?? []
        usage = try? container.decodeIfPresent(Usage.self, forKey: .usage)
    }

    public var functionCalls: [FunctionCall] {
        output.compactMap(\.functionCall).map { call in
            var call = call
            call.responseID = id
            return call
        }
    }
}

/// `response.done.response.usage`. `cached` counts are a subset of the input counts.
public struct Usage: Sendable, Equatable, Decodable {
    public var totalTokens: Int
    public var inputTokens: Int
    public var outputTokens: Int
    public var inputText: Int
    public var inputAudio: Int
    public var inputImage: Int
    public var cachedTokens: Int
    public var cachedText: Int
    public var cachedAudio: Int
    public var cachedImage: Int
    public var outputText: Int
    public var outputAudio: Int

    public init(
        inputText: Int = 0, inputAudio: Int = 0, inputImage: Int = 0, cachedText: Int = 0, cachedAudio: Int = 0,
        cachedImage: Int = 0, outputText: Int = 0, outputAudio: Int = 0
    ) {
        self.inputText = inputText
        self.inputAudio = inputAudio
        self.inputImage = inputImage
        self.cachedText = cachedText
        self.cachedAudio = cachedAudio
        self.cachedImage = cachedImage
        self.outputText = outputText
        self.outputAudio = outputAudio
        inputTokens = inputText + inputAudio + inputImage
        outputTokens = outputText + outputAudio
        totalTokens = inputTokens + outputTokens
        cachedTokens = cachedText + cachedAudio + cachedImage
    }

    enum CodingKeys: String, CodingKey {
        case totalTokens = "total_tokens"
        case inputTokens = "input_tokens"
        case outputTokens = "output_tokens"
        case inputDetails = "input_token_details"
        case outputDetails = "output_token_details"
        case cachedTokens = "cached_tokens"
        case cachedDetails = "cached_tokens_details"
        case text = "text_tokens"
        case audio = "audio_tokens"
        case image = "image_tokens"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func int(_ container: KeyedDecodingContainer<CodingKeys>?, _ key: CodingKeys) -> Int {
            (try? container?.decodeIfPresent(Int.self, forKey: key)) ?? 0
        }
        let input = try? container.nestedContainer(keyedBy: CodingKeys.self, forKey: .inputDetails)
        let cached = try? input?.nestedContainer(keyedBy: CodingKeys.self, forKey: .cachedDetails)
        let output = try? container.nestedContainer(keyedBy: CodingKeys.self, forKey: .outputDetails)
        inputText = int(input, .text)
        inputAudio = int(input, .audio)
        inputImage = int(input, .image)
        cachedTokens = int(input, .cachedTokens)
        cachedText = int(cached, .text)
        cachedAudio = int(cached, .audio)
        cachedImage = int(cached, .image)
        outputText = int(output, .text)
        outputAudio = int(output, .audio)
        inputTokens = int(container, .inputTokens)
        outputTokens = int(container, .outputTokens)
        totalTokens = int(container, .totalTokens)
    }

    public static func + (lhs: Usage, rhs: Usage) -> Usage {
        var sum = Usage(
            inputText: lhs.inputText + rhs.inputText, inputAudio: lhs.inputAudio + rhs.inputAudio,
            inputImage: lhs.inputImage + rhs.inputImage, cachedText: lhs.cachedText + rhs.cachedText,
            cachedAudio: lhs.cachedAudio + rhs.cachedAudio, cachedImage: lhs.cachedImage + rhs.cachedImage,
            outputText: lhs.outputText + rhs.outputText, outputAudio: lhs.outputAudio + rhs.outputAudio)
        sum.inputTokens = lhs.inputTokens + rhs.inputTokens
        sum.outputTokens = lhs.outputTokens + rhs.outputTokens
        sum.totalTokens = lhs.totalTokens + rhs.totalTokens
        sum.cachedTokens = lhs.cachedTokens + rhs.cachedTokens
        return sum
    }
}

/// One entry of `rate_limits.updated`.
public struct RateLimit: Sendable, Equatable, Decodable {
    public var name: String
    public var limit: Int
    public var remaining: Int
    public var resetSeconds: Double

    enum CodingKeys: String, CodingKey {
        case name, limit, remaining
        case resetSeconds = "reset_seconds"
    }

    public init(name: String, limit: Int, remaining: Int, resetSeconds: Double) {
        self.name = name
        self.limit = limit
        self.remaining = remaining
        self.resetSeconds = resetSeconds
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = (try? container.decodeIfPresent(String.self, forKey: .name)) ?? ""
        limit = (try? container.decodeIfPresent(Int.self, forKey: .limit)) ?? 0
        remaining = (try? container.decodeIfPresent(Int.self, forKey: .remaining)) ?? 0
        resetSeconds = (try? container.decodeIfPresent(Double.self, forKey: .resetSeconds)) ?? 0
    }
}

/// `response.output_audio.delta`: a chunk of base64 PCM16 24 kHz mono for one assistant item.
public struct AudioDelta: Sendable, Equatable {
    public var responseID: String
    public var itemID: String
    public var outputIndex: Int
    public var contentIndex: Int
    public var delta: String

    public init(responseID: String, itemID: String, outputIndex: Int = 0, contentIndex: Int = 0, delta: String) {
        self.responseID = responseID
        self.itemID = itemID
        self.outputIndex = outputIndex
        self.contentIndex = contentIndex
        self.delta = delta
    }

    /// Samples in this chunk, from the base64 length alone.
    public var sampleCount: Int { Base64.decodedLength(of: delta) / 2 }
}
