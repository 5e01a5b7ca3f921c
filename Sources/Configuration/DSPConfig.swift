/// `[dsp]`: the capture chain (speexdsp echo canceller + preprocessor) at the processing rate.
public struct DSPConfig: Sendable, Equatable {
    /// Frame length of the echo canceller and preprocessor (16 ms = 256 samples at 16 kHz).
    public var frameMs: Int = 16
    /// Echo canceller filter length: how much room echo it can model.
    public var echoTailMs: Int = 192
    /// Largest reference-to-mic delay the alignment search considers; 0 turns the search off.
    public var maxReferenceLagMs: Int = 500
    /// Estimate and correct clock drift between capture and playback.
    public var driftCompensation: Bool = true
    /// Maximum noise attenuation (negative dB).
    public var noiseSuppressDB: Int = -15
    /// Residual echo attenuation while only the far end talks (negative dB).
    public var echoSuppressDB: Int = -70
    /// Residual echo attenuation during double talk, as speexdsp's speech probability sees it (negative
    /// dB); none while the residual echo suppressor hears a talker (its lenient detector or its verdict).
    public var echoSuppressActiveDB: Int = -15
    /// Raise the canceller's reference (by 2x, 4x, 8x or 16x) when the echo at the mic is louder than it,
    /// as with the ReSpeaker's hardware loopback channel: speexdsp hardly adapts otherwise.
    public var matchReferenceLevel: Bool = true
    /// Per-band residual echo suppressor after the canceller (follows the reference, so it also removes
    /// echo a small loudspeaker distorts beyond what the linear filter models).
    public var residualEchoSuppressor: Bool = true
    /// Automatic gain control on the cleaned signal.
    public var agc: Bool = false
    /// AGC target level (linear, 1...32767).
    public var agcLevel: Int = 8000

    public init() {}
}
