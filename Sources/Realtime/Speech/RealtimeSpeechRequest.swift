import Basics

/// The two client events of one reading: a session with the conversation's voice, 24 kHz PCM out and no
/// turn detection (nobody talks on this connection), then an out-of-band `response.create` whose only
/// context is the text, so nothing joins a conversation and no earlier turn can colour the reading.
struct RealtimeSpeechRequest: Sendable, Equatable {
    /// Both the session's and the response's instructions: the text is read, not answered.
    static let instructions = """
        You read announcements aloud. Say exactly the text of the system message, word for word, in its \
        language. Add nothing before or after it, do not answer it or comment on it, and do not call any tools.
        """

    let text: String
    let voice: String
    let reasoningEffort: ReasoningEffort?

    /// Throws for an empty text or one longer than `configuration.maxTextCharacters`.
    init(text: String, configuration: RealtimeSpeechConfiguration) throws(RealtimeSpeechError) {
        let trimmed = text.trimmed()
        guard !trimmed.isEmpty else { throw .emptyText }
        guard trimmed.count <= configuration.maxTextCharacters else {
            throw .textTooLong(characters: trimmed.count, limit: configuration.maxTextCharacters)
        }
        self.text = trimmed
        voice = configuration.voice
        reasoningEffort = configuration.reasoningEffort
    }

    var sessionUpdate: ClientEvent {
        .sessionUpdate(
            SessionConfiguration(
                instructions: Self.instructions, outputModalities: ["audio"],
                audio: AudioConfiguration(
                    input: AudioInputConfiguration(turnDetection: .disabled),
                    output: AudioOutputConfiguration(format: .pcm24k, voice: voice)),
                reasoningEffort: reasoningEffort))
    }

    var responseCreate: ClientEvent {
        .responseCreate(
            ResponseOptions(
                instructions: Self.instructions, toolChoice: .noTools, outputModalities: ["audio"], conversation: .outOfBand,
                input: [.message(role: .system, text: text)]))
    }

    /// Echoed in `error.event_id` when the API rejects the response request.
    static let responseEventID = "speak"
}
