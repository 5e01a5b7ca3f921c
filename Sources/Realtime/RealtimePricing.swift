/// USD per 1M tokens for one Realtime model, and the per-response cost formula.
public struct RealtimePricing: Sendable, Equatable {
    public var textInput: Double
    public var textCached: Double
    public var textOutput: Double
    public var audioInput: Double
    public var audioCached: Double
    public var audioOutput: Double
    public var imageInput: Double
    public var imageCached: Double

    public init(
        textInput: Double, textCached: Double, textOutput: Double, audioInput: Double, audioCached: Double,
        audioOutput: Double, imageInput: Double, imageCached: Double
    ) {
        self.textInput = textInput
        self.textCached = textCached
        self.textOutput = textOutput
        self.audioInput = audioInput
        self.audioCached = audioCached
        self.audioOutput = audioOutput
        self.imageInput = imageInput
        self.imageCached = imageCached
    }

    /// `gpt-realtime-1.5` (and the retired `gpt-realtime`).
    public static let full = RealtimePricing(
        textInput: 4, textCached: 0.4, textOutput: 16, audioInput: 32, audioCached: 0.4, audioOutput: 64,
        imageInput: 5, imageCached: 0.5)
    /// `gpt-realtime-2` and `-2.1`: as `full`, with text output (reasoning included) at $24.
    public static let reasoningFull = RealtimePricing(
        textInput: 4, textCached: 0.4, textOutput: 24, audioInput: 32, audioCached: 0.4, audioOutput: 64,
        imageInput: 5, imageCached: 0.5)
    /// `gpt-realtime-2.1-mini` (and the retired `gpt-realtime-mini`).
    public static let mini = RealtimePricing(
        textInput: 0.6, textCached: 0.06, textOutput: 2.4, audioInput: 10, audioCached: 0.3, audioOutput: 20,
        imageInput: 0.8, imageCached: 0.08)

    /// Estimated USD for one `response.done.usage`.
    public func cost(of usage: Usage) -> Double {
        let perToken = 1e-6
        let text = Double(usage.inputText - usage.cachedText) * textInput + Double(usage.cachedText) * textCached
        let audio = Double(usage.inputAudio - usage.cachedAudio) * audioInput + Double(usage.cachedAudio) * audioCached
        let image = Double(usage.inputImage - usage.cachedImage) * imageInput + Double(usage.cachedImage) * imageCached
        let output = Double(usage.outputText) * textOutput + Double(usage.outputAudio) * audioOutput
        return (text + audio + image + output) * perToken
    }
}
