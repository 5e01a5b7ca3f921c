import Basics

/// How `RealtimeSpeechSynthesizer` reaches the Realtime API, whose voice it speaks with, and how much it takes.
public struct RealtimeSpeechConfiguration: Sendable {
    /// The conversation's connection settings (url, model, key, connect timeout).
    public var connection: RealtimeConnectionConfiguration
    /// `audio.output.voice`, the conversation's, so announcements sound like the assistant. Default `marin`.
    public var voice: String
    /// `reasoning.effort` for a reasoning model; nil for the others (they reject the field).
    public var reasoningEffort: ReasoningEffort?
    /// Longest speech accepted; a longer reading fails instead of growing without bound. Default 60 s.
    public var maxAudio: Duration
    /// Longest text accepted, in characters. Default 800: about a minute read aloud.
    public var maxTextCharacters: Int

    public init(
        connection: RealtimeConnectionConfiguration, voice: String = "marin", reasoningEffort: ReasoningEffort? = nil,
        maxAudio: Duration = .seconds(60), maxTextCharacters: Int = 800
    ) {
        self.connection = connection
        self.voice = voice
        self.reasoningEffort = reasoningEffort
        self.maxAudio = maxAudio
        self.maxTextCharacters = maxTextCharacters
    }

    /// `maxAudio` in 24 kHz samples.
    var maxSamples: Int { Int(maxAudio.wholeMilliseconds) * 24 }
}
