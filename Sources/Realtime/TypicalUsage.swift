/// The token use of what the appliance typically does, to price it per model before any bill: the
/// figures `jarvis-voice models` and the README's cost table give. Audio runs at 10 tokens a second
/// listening and 20 speaking (OpenAI's realtime cost guide); the prompt (instructions and the tools'
/// schemas) is about 1,400 text tokens, cached from the second response of a session on.
public enum TypicalUsage {
    /// One minute of the user talking (input audio, uncached).
    public static let listeningMinute = Usage(inputAudio: 600)
    /// One minute of the assistant talking (output audio).
    public static let speakingMinute = Usage(outputAudio: 1_200)

    /// A question in a fresh conversation, answered through ask_jarvis: 5 s asked; a first response that
    /// acknowledges it (1.5 s) and calls the tool; a second that speaks a 10 s answer, re-reading the
    /// session (prompt, question, call and tool output) mostly from the cache.
    public static let question =
        Usage(inputText: 1_400, inputAudio: 50, outputText: 40, outputAudio: 30)
        + Usage(inputText: 1_590, inputAudio: 80, cachedText: 1_408, cachedAudio: 64, outputText: 60, outputAudio: 200)

    /// A DJ interlude: a system note about the next track and an 8 s spoken introduction.
    public static let djInterlude = Usage(inputText: 1_450, outputText: 30, outputAudio: 160)

    /// `ctl say` of a sentence: the text and its 4 s reading.
    public static let say = Usage(inputText: 1_450, outputText: 20, outputAudio: 80)
}
