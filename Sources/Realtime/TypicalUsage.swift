/// The token use of what the appliance typically does, to price it per model (`jarvis-voice models`, the
/// README's cost table): audio is 10 tokens a second listening, 20 speaking (OpenAI's realtime cost guide);
/// the prompt is about 1,400 text tokens, cached from a session's second response on.
public enum TypicalUsage {
    /// One minute of the user talking (input audio, uncached).
    public static let listeningMinute = Usage(inputAudio: 600)
    /// One minute of the assistant talking (output audio).
    public static let speakingMinute = Usage(outputAudio: 1_200)

    /// A question through ask_jarvis in a fresh conversation: 5 s asked, a 1.5 s acknowledgement with the
    /// call, then a 10 s answer that re-reads the session mostly from the cache.
    public static let question =
        Usage(inputText: 1_400, inputAudio: 50, outputText: 40, outputAudio: 30)
        + Usage(inputText: 1_590, inputAudio: 80, cachedText: 1_408, cachedAudio: 64, outputText: 60, outputAudio: 200)

    /// A DJ interlude: a system note about the next track and an 8 s spoken introduction.
    public static let djInterlude = Usage(inputText: 1_450, outputText: 30, outputAudio: 160)

    /// `ctl say` of a sentence: the text and its 4 s reading.
    public static let say = Usage(inputText: 1_450, outputText: 20, outputAudio: 80)
}
