/// How the user takes turns in a conversation; decides `audio.input.turn_detection`.
public enum TurnTaking: String, Sendable, Equatable {
    /// The server's VAD finds turns (semantic or server VAD from the settings).
    case handsFree
    /// No VAD (`turn_detection: null`): the button commits, the client creates responses.
    case pushToTalk
    /// Typed requests (`ctl ask`): no VAD and no microphone.
    case text

    /// What the journal calls it.
    public var plainName: String {
        switch self {
        case .handsFree: "hands-free"
        case .pushToTalk: "push-to-talk"
        case .text: "typed"
        }
    }
}

/// Typed Realtime session settings (from the configuration file) and the `session.update` builder.
public struct RealtimeSessionSettings: Sendable, Equatable {
    public enum VoiceActivityDetection: Sendable, Equatable {
        case semantic(eagerness: TurnDetection.SemanticVAD.Eagerness)
        case server(threshold: Double, prefixPaddingMs: Int, silenceDurationMs: Int)
    }

    /// Output voice; fixed by the server after the first audio output. Default `marin`.
    public var voice: String
    /// Turn detection for hands-free conversations. Default semantic VAD, eagerness `auto`.
    public var handsFreeDetection: VoiceActivityDetection
    /// Input transcription model (for logs), or nil for off (the default; it is billed separately).
    public var transcriptionModel: String?
    /// Language hint for transcription, e.g. "en".
    public var transcriptionLanguage: String?
    /// Default `far_field` (a kitchen appliance microphone).
    public var noiseReduction: NoiseReduction
    /// System prompt (the product's, built from its tools by the appliance layer); empty sends none. Default empty.
    public var instructions: String
    /// `reasoning.effort` for a reasoning model; nil sends none (a model without reasoning rejects it).
    public var reasoningEffort: ReasoningEffort?

    public init(
        voice: String = "marin", handsFreeDetection: VoiceActivityDetection = .semantic(eagerness: .auto),
        transcriptionModel: String? = nil, transcriptionLanguage: String? = nil, noiseReduction: NoiseReduction = .farField,
        instructions: String = "", reasoningEffort: ReasoningEffort? = nil
    ) {
        self.voice = voice
        self.handsFreeDetection = handsFreeDetection
        self.transcriptionModel = transcriptionModel
        self.transcriptionLanguage = transcriptionLanguage
        self.noiseReduction = noiseReduction
        self.instructions = instructions
        self.reasoningEffort = reasoningEffort
    }

    /// Hands-free keeps the server's VAD for finding turns but takes both of its automatic actions away
    /// (`interrupt_response: false`, `create_response: false`): the server VAD also fires on the speaker's
    /// own echo, so the appliance decides barge-in locally (its near-end speech detector) and asks for the
    /// answer itself once it has accepted a turn (`response.create` after `speech_stopped`). With
    /// `create_response: true` an echo turn committed while the assistant's audio still plays (the server
    /// finished generating long before) would be answered by the server on its own.
    public func turnDetection(for turnTaking: TurnTaking) -> TurnDetection {
        switch (turnTaking, handsFreeDetection) {
        case (.pushToTalk, _), (.text, _): .disabled
        case (.handsFree, .semantic(let eagerness)):
            .semanticVAD(.init(eagerness: eagerness, createResponse: false, interruptResponse: false))
        case (.handsFree, .server(let threshold, let prefix, let silence)):
            .serverVAD(
                .init(
                    threshold: threshold, prefixPaddingMs: prefix, silenceDurationMs: silence,
                    createResponse: false, interruptResponse: false))
        }
    }

    /// The full `session.update` sent once per connection.
    public func sessionUpdate(tools: [FunctionTool], turnTaking: TurnTaking) -> ClientEvent {
        let transcription: InputTranscription =
            transcriptionModel.map { .enabled(model: $0, language: transcriptionLanguage, prompt: nil) } ?? .disabled
        return .sessionUpdate(
            SessionConfiguration(
                instructions: instructions.isEmpty ? nil : instructions,
                outputModalities: ["audio"],
                audio: AudioConfiguration(
                    input: AudioInputConfiguration(
                        format: .pcm24k, turnDetection: turnDetection(for: turnTaking), transcription: transcription,
                        noiseReduction: noiseReduction),
                    output: AudioOutputConfiguration(format: .pcm24k, voice: voice)),
                tools: tools,
                toolChoice: .auto,
                reasoningEffort: reasoningEffort))
    }

    /// A partial `session.update` that only switches turn detection (e.g. hands-free → push-to-talk).
    public func turnTakingUpdate(_ turnTaking: TurnTaking) -> ClientEvent {
        .sessionUpdate(
            SessionConfiguration(audio: AudioConfiguration(input: AudioInputConfiguration(turnDetection: turnDetection(for: turnTaking)))))
    }
}
