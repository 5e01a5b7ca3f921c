import AudioCore

/// Settings of the capture DSP chain (`[dsp]` in the config file). Every field maps one to one to
/// the TOML key named in its comment; the defaults are the values measured in `Benchmarks/aec`.
public struct CaptureChainConfiguration: Sendable, Equatable {
    /// The processing rate of the chain (AEC + preprocess). Not configurable.
    public static let sampleRate = 16_000
    /// The uplink rate (the Realtime API's PCM16 rate). Not configurable.
    public static let uplinkSampleRate = 24_000

    /// `frame_ms`: AEC/preprocess frame length in ms (16 ms = 256 samples at 16 kHz). Default 16.
    public var frameMs: Int = 16
    /// `echo_tail_ms`: echo canceller filter length in ms. Default 192 (3072 taps).
    public var echoTailMs: Int = 192
    /// `max_reference_lag_ms`: search range (each direction) of the reference delay estimator; 0 turns
    /// the estimator off (the reference is used as aligned by the caller). Default 500.
    public var maxReferenceLagMs: Int = 500
    /// `drift_compensation`: track capture/playback clock drift and resample the reference; false takes
    /// the drift resampler out of the reference path entirely. Default true.
    public var driftCompensation: Bool = true
    /// `noise_suppress_db`: maximum noise attenuation (dB, negative). Default -15.
    public var noiseSuppressDB: Int = -15
    /// `echo_suppress_db`: maximum residual echo attenuation with no near-end speech (dB, negative). Default -70.
    public var echoSuppressDB: Int = -70
    /// `echo_suppress_active_db`: maximum residual echo attenuation during near-end speech (dB, negative),
    /// as speexdsp's speech probability sees it; 0 while the residual echo suppressor hears a talker (its
    /// talker detector or its verdict). Default -15.
    public var echoSuppressActiveDB: Int = -15
    /// `residual_echo_suppressor`: the per-band suppressor after the canceller (`ResidualEchoSuppressor`;
    /// adds one frame of latency). Default true.
    public var residualEchoSuppressor: Bool = true
    /// `match_reference_level`: raise the canceller's reference by a power of two (up to 16x) when the echo
    /// is louder than it (`ReferenceLevelMatcher`). Default true.
    public var matchReferenceLevel: Bool = true
    /// `agc`: automatic gain control. Default false.
    public var agc: Bool = false
    /// `agc_level`: AGC target level (RMS of the 16-bit signal). Default 8000.
    public var agcLevel: Int = 8000

    public init() {}

    /// Samples per frame at the processing rate.
    public var frameSize: Int { Self.sampleRate * frameMs / 1000 }
    /// Echo canceller taps.
    public var filterLength: Int { Self.sampleRate * echoTailMs / 1000 }
    /// Uplink samples per frame at 24 kHz.
    public var uplinkFrameSize: Int { Self.uplinkSampleRate * frameMs / 1000 }

    /// Problems, each naming the TOML key; empty when valid.
    public var problems: [String] {
        typealias Limits = CaptureChainLimits
        var p: [String] = []
        if !Limits.isValidFrame(milliseconds: frameMs) {
            p.append("dsp.frame_ms must be an even number of milliseconds in \(Limits.frameMilliseconds) (got \(frameMs))")
        }
        if !Limits.isValidEchoTail(milliseconds: echoTailMs, frameMilliseconds: frameMs) {
            p.append("dsp.echo_tail_ms must be in \(Limits.echoTailMilliseconds) and at least frame_ms (got \(echoTailMs))")
        }
        if !Limits.maxReferenceLagMilliseconds.contains(maxReferenceLagMs) {
            p.append("dsp.max_reference_lag_ms must be in \(Limits.maxReferenceLagMilliseconds) (got \(maxReferenceLagMs))")
        }
        if !Limits.noiseSuppressDB.contains(noiseSuppressDB) {
            p.append("dsp.noise_suppress_db must be in \(Limits.noiseSuppressDB) (got \(noiseSuppressDB))")
        }
        if !Limits.echoSuppressDB.contains(echoSuppressDB) {
            p.append("dsp.echo_suppress_db must be in \(Limits.echoSuppressDB) (got \(echoSuppressDB))")
        }
        if !Limits.echoSuppressDB.contains(echoSuppressActiveDB) {
            p.append("dsp.echo_suppress_active_db must be in \(Limits.echoSuppressDB) (got \(echoSuppressActiveDB))")
        }
        if !Limits.agcLevel.contains(agcLevel) { p.append("dsp.agc_level must be in \(Limits.agcLevel) (got \(agcLevel))") }
        return p
    }
}
