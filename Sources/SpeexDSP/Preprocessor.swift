/// speexdsp's preprocessor: noise suppression, optional AGC, voice activity / speech probability,
/// and residual echo suppression when linked to an `EchoCanceller`.
///
/// Not thread-safe: one thread at a time (`@unchecked Sendable` only for handing it to the realtime thread).
public final class Preprocessor: @unchecked Sendable {
    public let frameSize: Int
    public let sampleRate: Int
    let handle: PreprocessHandle
    /// Kept alive while linked: speex holds a raw pointer to the echo state.
    private var linkedEcho: EchoCanceller?

    public init(frameSize: Int, sampleRate: Int) throws(SpeexDSPError) {
        handle = try PreprocessHandle(frameSize: frameSize, sampleRate: sampleRate)
        self.frameSize = frameSize
        self.sampleRate = sampleRate
    }

    /// Noise suppression on/off.
    public var denoise: Bool {
        handle.getInt(PreprocessRequest.getDenoise) != 0
    }
    public func setDenoise(_ on: Bool) throws(SpeexDSPError) {
        try handle.setInt(PreprocessRequest.denoise, "SPEEX_PREPROCESS_SET_DENOISE", on ? 1 : 0)
    }

    /// Maximum noise attenuation in dB (negative, e.g. -15).
    public var noiseSuppressDB: Int { Int(handle.getInt(PreprocessRequest.getNoiseSuppress)) }
    public func setNoiseSuppress(dB: Int) throws(SpeexDSPError) {
        try handle.setInt(PreprocessRequest.noiseSuppress, "SPEEX_PREPROCESS_SET_NOISE_SUPPRESS", Int32(dB))
    }

    public var agc: Bool { handle.getInt(PreprocessRequest.getAGC) != 0 }
    public func setAGC(_ on: Bool) throws(SpeexDSPError) {
        try handle.setInt(PreprocessRequest.agc, "SPEEX_PREPROCESS_SET_AGC", on ? 1 : 0)
    }

    /// AGC target level (speex's unit: RMS of the 16-bit signal, e.g. 8000).
    public var agcLevel: Float { handle.getFloat(PreprocessRequest.getAGCLevel) }
    public func setAGCLevel(_ level: Float) throws(SpeexDSPError) {
        try handle.setFloat(PreprocessRequest.agcLevel, "SPEEX_PREPROCESS_SET_AGC_LEVEL", level)
    }

    /// Makes `process` return a VAD decision (speech probability is available either way).
    public func setVAD(_ on: Bool) throws(SpeexDSPError) {
        try handle.setInt(PreprocessRequest.vad, "SPEEX_PREPROCESS_SET_VAD", on ? 1 : 0)
    }

    /// VAD hysteresis: probability (0-100) to start / to continue speech.
    public func setSpeechProbability(start: Int, continue cont: Int) throws(SpeexDSPError) {
        try handle.setInt(PreprocessRequest.probStart, "SPEEX_PREPROCESS_SET_PROB_START", Int32(start))
        try handle.setInt(PreprocessRequest.probContinue, "SPEEX_PREPROCESS_SET_PROB_CONTINUE", Int32(cont))
    }

    /// Speech probability of the last processed frame, 0...1.
    public var speechProbability: Float { Float(handle.getInt(PreprocessRequest.getProb)) / 100 }

    /// Residual echo suppression uses the canceller's state; pass nil to unlink. The canceller's frame
    /// must be this preprocessor's: speexdsp copies its residual echo spectrum (frame + 1 values) into
    /// the preprocessor's buffer (frame + 24 values).
    public func linkEchoCanceller(_ echo: EchoCanceller?) throws(SpeexDSPError) {
        precondition(
            echo.map { $0.frameSize == frameSize } ?? true,
            "linkEchoCanceller: the canceller's frame (\(echo?.frameSize ?? 0)) is not the preprocessor's (\(frameSize))")
        try handle.setEchoState(echo?.handle)
        linkedEcho = echo
    }

    /// Maximum residual echo attenuation (dB, negative) when the near end is silent.
    public var echoSuppressDB: Int { Int(handle.getInt(PreprocessRequest.getEchoSuppress)) }
    public func setEchoSuppress(dB: Int) throws(SpeexDSPError) {
        try handle.setInt(PreprocessRequest.echoSuppress, "SPEEX_PREPROCESS_SET_ECHO_SUPPRESS", Int32(dB))
    }

    /// Maximum residual echo attenuation (dB, negative) while the near end talks.
    public var echoSuppressActiveDB: Int { Int(handle.getInt(PreprocessRequest.getEchoSuppressActive)) }
    public func setEchoSuppressActive(dB: Int) throws(SpeexDSPError) {
        try handle.setInt(PreprocessRequest.echoSuppressActive, "SPEEX_PREPROCESS_SET_ECHO_SUPPRESS_ACTIVE", Int32(dB))
    }

    /// Processes `frame` (frameSize samples) in place. Returns the VAD decision (false unless VAD is on).
    /// Realtime-safe.
    @discardableResult @inline(__always)
    public func process(_ frame: UnsafeMutableBufferPointer<Int16>) -> Bool {
        precondition(frame.count >= frameSize)
        return handle.run(frame.baseAddress!)
    }
}
