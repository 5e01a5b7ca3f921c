import Basics

/// The GA `session` object of a `session.update` (only the fields this appliance sets; nil fields are omitted,
/// so an update changes only what it names).
public struct SessionConfiguration: Sendable, Equatable, Encodable {
    public var instructions: String?
    public var outputModalities: [String]?
    public var audio: AudioConfiguration?
    public var tools: [FunctionTool]?
    public var toolChoice: ToolChoice?
    public var maxOutputTokens: Int?
    /// `reasoning.effort`, for reasoning models only (others reject the field).
    public var reasoningEffort: ReasoningEffort?

    public init(
        instructions: String? = nil, outputModalities: [String]? = nil, audio: AudioConfiguration? = nil,
        tools: [FunctionTool]? = nil, toolChoice: ToolChoice? = nil, maxOutputTokens: Int? = nil,
        reasoningEffort: ReasoningEffort? = nil
    ) {
        self.instructions = instructions
        self.outputModalities = outputModalities
        self.audio = audio
        self.tools = tools
        self.toolChoice = toolChoice
        self.maxOutputTokens = maxOutputTokens
        self.reasoningEffort = reasoningEffort
    }

    enum CodingKeys: String, CodingKey {
        case type, instructions, audio, tools, reasoning, effort
        case outputModalities = "output_modalities"
        case toolChoice = "tool_choice"
        case maxOutputTokens = "max_output_tokens"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("realtime", forKey: .type)
        try container.encodeIfPresent(instructions, forKey: .instructions)
        try container.encodeIfPresent(outputModalities, forKey: .outputModalities)
        try container.encodeIfPresent(audio, forKey: .audio)
        try container.encodeIfPresent(tools, forKey: .tools)
        try container.encodeIfPresent(toolChoice, forKey: .toolChoice)
        try container.encodeIfPresent(maxOutputTokens, forKey: .maxOutputTokens)
        if let reasoningEffort {
            var reasoning = container.nestedContainer(keyedBy: CodingKeys.self, forKey: .reasoning)
            try reasoning.encode(reasoningEffort.rawValue, forKey: .effort)
        }
    }
}

/// How hard a reasoning model thinks before it speaks: lower is sooner (the SDK's `RealtimeReasoningEffort`).
public enum ReasoningEffort: String, Sendable, Equatable, CaseIterable {
    case minimal, low, medium, high, xhigh
}

public struct AudioConfiguration: Sendable, Equatable, Encodable {
    public var input: AudioInputConfiguration?
    public var output: AudioOutputConfiguration?

    public init(input: AudioInputConfiguration? = nil, output: AudioOutputConfiguration? = nil) {
        self.input = input
        self.output = output
    }
}

public struct AudioInputConfiguration: Sendable, Equatable, Encodable {
    public var format: AudioFormatSpecification?
    /// nil: unchanged; `.disabled`: sent as `null` (push-to-talk).
    public var turnDetection: TurnDetection?
    /// nil: unchanged; `.disabled`: sent as `null`.
    public var transcription: InputTranscription?
    /// nil: unchanged; `.off`: sent as `null`.
    public var noiseReduction: NoiseReduction?

    public init(
        format: AudioFormatSpecification? = nil, turnDetection: TurnDetection? = nil,
        transcription: InputTranscription? = nil, noiseReduction: NoiseReduction? = nil
    ) {
        self.format = format
        self.turnDetection = turnDetection
        self.transcription = transcription
        self.noiseReduction = noiseReduction
    }

    enum CodingKeys: String, CodingKey {
        case format, transcription
        case turnDetection = "turn_detection"
        case noiseReduction = "noise_reduction"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(format, forKey: .format)
        switch noiseReduction {
        case nil: break
        case .off: try container.encodeNil(forKey: .noiseReduction)
        case .some(let value): try container.encode(value, forKey: .noiseReduction)
        }
        switch transcription {
        case nil: break
        case .disabled: try container.encodeNil(forKey: .transcription)
        case .some(let value): try container.encode(value, forKey: .transcription)
        }
        switch turnDetection {
        case nil: break
        case .disabled: try container.encodeNil(forKey: .turnDetection)
        case .some(let value): try container.encode(value, forKey: .turnDetection)
        }
    }
}

public struct AudioOutputConfiguration: Sendable, Equatable, Encodable {
    public var format: AudioFormatSpecification?
    public var voice: String?
    public var speed: Double?

    public init(format: AudioFormatSpecification? = nil, voice: String? = nil, speed: Double? = nil) {
        self.format = format
        self.voice = voice
        self.speed = speed
    }
}

public enum AudioFormatSpecification: Sendable, Equatable, Encodable {
    /// 16-bit little-endian mono PCM; the API accepts only 24 kHz.
    case pcm(rate: Int)
    case pcmu
    case pcma

    public static let pcm24k = AudioFormatSpecification.pcm(rate: 24_000)

    enum CodingKeys: String, CodingKey { case type, rate }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .pcm(let rate):
            try container.encode("audio/pcm", forKey: .type)
            try container.encode(rate, forKey: .rate)
        case .pcmu: try container.encode("audio/pcmu", forKey: .type)
        case .pcma: try container.encode("audio/pcma", forKey: .type)
        }
    }
}

public enum TurnDetection: Sendable, Equatable, Encodable {
    case serverVAD(ServerVAD)
    case semanticVAD(SemanticVAD)
    /// `turn_detection: null`: no VAD; the client commits and creates responses (push-to-talk).
    case disabled

    public struct ServerVAD: Sendable, Equatable {
        public var threshold: Double
        public var prefixPaddingMs: Int
        public var silenceDurationMs: Int
        public var idleTimeoutMs: Int?
        public var createResponse: Bool
        public var interruptResponse: Bool

        public init(
            threshold: Double = 0.5, prefixPaddingMs: Int = 300, silenceDurationMs: Int = 500,
            idleTimeoutMs: Int? = nil, createResponse: Bool = true, interruptResponse: Bool = true
        ) {
            self.threshold = threshold
            self.prefixPaddingMs = prefixPaddingMs
            self.silenceDurationMs = silenceDurationMs
            self.idleTimeoutMs = idleTimeoutMs
            self.createResponse = createResponse
            self.interruptResponse = interruptResponse
        }
    }

    public struct SemanticVAD: Sendable, Equatable {
        public enum Eagerness: String, Sendable, Equatable, CaseIterable { case low, medium, high, auto }
        public var eagerness: Eagerness
        public var createResponse: Bool
        public var interruptResponse: Bool

        public init(eagerness: Eagerness = .auto, createResponse: Bool = true, interruptResponse: Bool = true) {
            self.eagerness = eagerness
            self.createResponse = createResponse
            self.interruptResponse = interruptResponse
        }
    }

    enum CodingKeys: String, CodingKey {
        case type, threshold, eagerness
        case prefixPaddingMs = "prefix_padding_ms"
        case silenceDurationMs = "silence_duration_ms"
        case idleTimeoutMs = "idle_timeout_ms"
        case createResponse = "create_response"
        case interruptResponse = "interrupt_response"
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .disabled:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .serverVAD(let vad):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode("server_vad", forKey: .type)
            try container.encode(vad.threshold, forKey: .threshold)
            try container.encode(vad.prefixPaddingMs, forKey: .prefixPaddingMs)
            try container.encode(vad.silenceDurationMs, forKey: .silenceDurationMs)
            if let idle = vad.idleTimeoutMs {
                try container.encode(idle, forKey: .idleTimeoutMs)
            } else {
                try container.encodeNil(forKey: .idleTimeoutMs)
            }
            try container.encode(vad.createResponse, forKey: .createResponse)
            try container.encode(vad.interruptResponse, forKey: .interruptResponse)
        case .semanticVAD(let vad):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode("semantic_vad", forKey: .type)
            try container.encode(vad.eagerness.rawValue, forKey: .eagerness)
            try container.encode(vad.createResponse, forKey: .createResponse)
            try container.encode(vad.interruptResponse, forKey: .interruptResponse)
        }
    }
}

public enum InputTranscription: Sendable, Equatable, Encodable {
    case enabled(model: String, language: String?, prompt: String?)
    case disabled

    enum CodingKeys: String, CodingKey { case model, language, prompt }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .disabled:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .enabled(let model, let language, let prompt):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(model, forKey: .model)
            try container.encodeIfPresent(language, forKey: .language)
            try container.encodeIfPresent(prompt, forKey: .prompt)
        }
    }
}

public enum NoiseReduction: String, Sendable, Equatable, Encodable {
    case nearField = "near_field"
    case farField = "far_field"
    case off

    enum CodingKeys: String, CodingKey { case type }

    public func encode(to encoder: any Encoder) throws {
        if self == .off {
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        } else {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(rawValue, forKey: .type)
        }
    }
}

/// A function tool as the model sees it: `{"type":"function","name","description","parameters":<JSON Schema>}`.
public struct FunctionTool: Sendable, Equatable, Encodable {
    public var name: String
    public var description: String
    public var parameters: JSONValue

    public init(name: String, description: String, parameters: JSONValue) {
        self.name = name
        self.description = description
        self.parameters = parameters
    }

    enum CodingKeys: String, CodingKey { case type, name, description, parameters }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("function", forKey: .type)
        try container.encode(name, forKey: .name)
        try container.encode(description, forKey: .description)
        try container.encode(parameters, forKey: .parameters)
    }
}

public enum ToolChoice: Sendable, Equatable, Encodable {
    case auto
    case noTools
    case required
    case function(name: String)

    enum CodingKeys: String, CodingKey { case type, name }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .auto, .noTools, .required:
            var container = encoder.singleValueContainer()
            try container.encode(self == .auto ? "auto" : self == .noTools ? "none" : "required")
        case .function(let name):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode("function", forKey: .type)
            try container.encode(name, forKey: .name)
        }
    }
}
