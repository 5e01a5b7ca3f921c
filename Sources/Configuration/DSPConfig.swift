/// `[dsp]`: the capture chain (speexdsp echo canceller + preprocessor) at the processing rate.
public struct DSPConfig: Sendable, Equatable {
    /// Frame length of the echo canceller and preprocessor (16 ms = 256 samples at 16 kHz).
    public var frameMs: Int
    /// Echo canceller filter length: how much room echo it can model.
    public var echoTailMs: Int
    /// Largest reference-to-mic delay the alignment search considers; 0 turns the search off.
    public var maxReferenceLagMs: Int
    /// Estimate and correct clock drift between capture and playback.
    public var driftCompensation: Bool
    /// Maximum noise attenuation (negative dB).
    public var noiseSuppressDB: Int
    /// Residual echo attenuation while only the far end talks (negative dB).
    public var echoSuppressDB: Int
    /// Residual echo attenuation during double talk (negative dB).
    public var echoSuppressActiveDB: Int
    /// Per-band residual echo suppressor after the canceller (follows the reference, so it also removes
    /// echo a small loudspeaker distorts beyond what the linear filter models).
    public var residualEchoSuppressor: Bool
    /// Automatic gain control on the cleaned signal.
    public var agc: Bool
    /// AGC target level (linear, 1...32767).
    public var agcLevel: Int

    public init(
        frameMs: Int = 16,
        echoTailMs: Int = 192,
        maxReferenceLagMs: Int = 500,
        driftCompensation: Bool = true,
        noiseSuppressDB: Int = -15,
        echoSuppressDB: Int = -40,
        echoSuppressActiveDB: Int = -15,
        residualEchoSuppressor: Bool = true,
        agc: Bool = false,
        agcLevel: Int = 8000
    ) {
        self.frameMs = frameMs
        self.echoTailMs = echoTailMs
        self.maxReferenceLagMs = maxReferenceLagMs
        self.driftCompensation = driftCompensation
        self.noiseSuppressDB = noiseSuppressDB
        self.echoSuppressDB = echoSuppressDB
        self.echoSuppressActiveDB = echoSuppressActiveDB
        self.residualEchoSuppressor = residualEchoSuppressor
        self.agc = agc
        self.agcLevel = agcLevel
    }
}
