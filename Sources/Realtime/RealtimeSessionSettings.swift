/// How the user takes turns in a conversation; decides `audio.input.turn_detection`.
public enum TurnTaking: String, Sendable, Equatable {
    /// The server's VAD finds turns (semantic or server VAD from the settings).
    case handsFree
    /// No VAD (`turn_detection: null`): the button commits, the client creates responses.
    case pushToTalk
    /// Typed requests (`ctl ask`): no VAD and no microphone.
    case text
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
    /// System prompt; default `RealtimeSessionSettings.routerInstructions`.
    public var instructions: String

    public init(
        voice: String = "marin", handsFreeDetection: VoiceActivityDetection = .semantic(eagerness: .auto),
        transcriptionModel: String? = nil, transcriptionLanguage: String? = nil, noiseReduction: NoiseReduction = .farField,
        instructions: String = RealtimeSessionSettings.routerInstructions
    ) {
        self.voice = voice
        self.handsFreeDetection = handsFreeDetection
        self.transcriptionModel = transcriptionModel
        self.transcriptionLanguage = transcriptionLanguage
        self.noiseReduction = noiseReduction
        self.instructions = instructions
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
            .serverVAD(.init(threshold: threshold, prefixPaddingMs: prefix, silenceDurationMs: silence,
                             createResponse: false, interruptResponse: false))
        }
    }

    /// The full `session.update` sent once per connection.
    public func sessionUpdate(tools: [FunctionTool], turnTaking: TurnTaking) -> ClientEvent {
        let transcription: InputTranscription =
            transcriptionModel.map { .enabled(model: $0, language: transcriptionLanguage, prompt: nil) } ?? .disabled
        return .sessionUpdate(
            SessionConfiguration(
                instructions: instructions,
                outputModalities: ["audio"],
                audio: AudioConfiguration(
                    input: AudioInputConfiguration(
                        format: .pcm24k, turnDetection: turnDetection(for: turnTaking), transcription: transcription,
                        noiseReduction: noiseReduction),
                    output: AudioOutputConfiguration(format: .pcm24k, voice: voice)),
                tools: tools,
                toolChoice: .auto))
    }

    /// A partial `session.update` that only switches turn detection (e.g. hands-free → push-to-talk).
    public func turnTakingUpdate(_ turnTaking: TurnTaking) -> ClientEvent {
        .sessionUpdate(
            SessionConfiguration(audio: AudioConfiguration(input: AudioInputConfiguration(turnDetection: turnDetection(for: turnTaking)))))
    }

    /// The thin-router system prompt: the model is only the mouth and ears; Jarvis thinks; the device plays media.
    public static let routerInstructions = """
        You are the voice of Jarvis on a kitchen speaker. You are only the mouth and ears: you never think, \
        know or decide anything yourself. Jarvis, reached through the ask_jarvis tool, does all the thinking.

        # Routing
        For every real question, task or request (anything beyond a greeting, a thank-you, or "say that again"), \
        call ask_jarvis with the user's complete request in their own words, including every detail they gave \
        (names, dates, quantities, places). Do not abbreviate or reframe it. Never answer from your own knowledge, \
        never guess, and never refuse on Jarvis's behalf.

        # Before calling
        Before calling ask_jarvis, say one short, natural acknowledgement, varied, never the same twice in a row, \
        for example: "Let me ask Jarvis." "One moment." "Checking now." "On it." "Let me look that up." \
        "Sure, give me a second." Then call ask_jarvis immediately and say nothing else.

        # Speaking the answer
        When ask_jarvis returns, say its answer naturally and briefly, in the user's language. Add no facts, \
        opinions or questions of your own. If it returns an error message, say it plainly in one sentence.

        # Media
        Jarvis curates; this device performs. To choose something to play ("play something good", "surprise \
        me", "a podcast I haven't heard"), call ask_jarvis with the request. When Jarvis answers with a pick, often \
        as JSON {"type", "title", "url", "reason"}, call play_audio with exactly that url, title and type (never invent a URL \
        or change one), then introduce the pick in one short sentence, using the reason. If Jarvis names \
        several, play the first and enqueue the rest. A SomaFM station by name goes to play_station, a podcast \
        feed URL to play_podcast.
        Simple controls go straight to the local media tools without asking Jarvis: pause_playback, \
        resume_playback, stop_playback, skip_track, get_now_playing ("what's playing?"), set_volume ("louder", \
        "quieter": read the volume with get_now_playing and step by about 0.1), enqueue, clear_queue, and \
        duck_audio when the user wants the music lower or higher while you talk. Do not say an acknowledgement \
        before these; after them, confirm in a few words, or answer from the result (get_now_playing's \
        stream_title is the song on air). Its recent list shows what was played lately, to avoid repeats.
        System messages about media (an item ended, the next item, a stream that stopped) are cues from this \
        device: do what they ask in one short sentence and say nothing else.

        Keep your own speech short: this is a speaker, not a screen.
        """
}
