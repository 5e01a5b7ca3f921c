import Configuration
import Realtime

/// The assistant's voice for an announcement played elsewhere (a Snapcast group): the text read by the
/// Realtime voice into 24 kHz mono PCM16 on a connection of its own, apart from the conversation.
struct AnnouncementVoice: Sendable {
    let configuration: RealtimeSpeechConfiguration
    /// Connect, reading and close together; a minute of speech arrives well within it.
    let timeout: Duration

    /// The same url, model, key, voice and connect timeout as the conversation's (`RunCommand.makeRunner`).
    init(_ config: JarvisVoiceConfig, openAIKey: Secret, timeout: Duration = .seconds(60)) {
        let session = RealtimeSessionSettings(config.realtime)
        configuration = RealtimeSpeechConfiguration(
            connection: RealtimeConnectionConfiguration(config.realtime, openAIKey: openAIKey), voice: session.voice,
            reasoningEffort: session.reasoningEffort)
        self.timeout = timeout
    }

    /// The text spoken, as 24 kHz mono PCM16.
    func speak(_ text: String) async throws(RealtimeSpeechError) -> [Int16] {
        try await RealtimeSpeechSynthesizer.speak(text, configuration: configuration, timeout: timeout)
    }
}

extension RealtimeConnectionConfiguration {
    /// `[realtime]` and the OpenAI key: what every Realtime connection of the service dials with.
    init(_ realtime: RealtimeConfig, openAIKey: Secret) {
        self.init(
            url: realtime.url, model: realtime.model, apiKey: RealtimeAPIKey(openAIKey.unredacted),
            apiKeySource: openAIKey.source.description, connectTimeout: realtime.connectTimeout)
    }
}
