import CSpeexDSP

// The only file that calls the speexdsp C API. Handles are owned by final classes that destroy
// them in deinit; failures become `SpeexDSPError` naming the C function.

final class EchoHandle {
    let state: OpaquePointer

    init(frameSize: Int, filterLength: Int, sampleRate: Int) throws(SpeexDSPError) {
        guard frameSize > 0, filterLength > 0, sampleRate > 0 else {
            throw SpeexDSPError(
                function: "speex_echo_state_init",
                message: "frame size \(frameSize), filter length \(filterLength) and rate \(sampleRate) must be positive")
        }
        guard let st = speex_echo_state_init(Int32(frameSize), Int32(filterLength)) else {
            throw SpeexDSPError(function: "speex_echo_state_init", message: "returned NULL (out of memory?)")
        }
        state = st
        var rate = Int32(sampleRate)
        guard speex_echo_ctl(st, SPEEX_ECHO_SET_SAMPLING_RATE, &rate) == 0 else {
            speex_echo_state_destroy(st)
            throw SpeexDSPError(function: "speex_echo_ctl(SPEEX_ECHO_SET_SAMPLING_RATE)", message: "rejected \(sampleRate) Hz")
        }
    }

    deinit { speex_echo_state_destroy(state) }

    @inline(__always)
    func cancel(mic: UnsafePointer<Int16>, reference: UnsafePointer<Int16>, output: UnsafeMutablePointer<Int16>) {
        speex_echo_cancellation(state, mic, reference, output)
    }

    func reset() { speex_echo_state_reset(state) }

    func impulseResponseSize() -> Int {
        var size: Int32 = 0
        _ = speex_echo_ctl(state, SPEEX_ECHO_GET_IMPULSE_RESPONSE_SIZE, &size)
        return Int(size)
    }

    /// Writes the current time-domain filter (scaled by 32767) into `into`, which must hold `impulseResponseSize()`.
    func impulseResponse(into: UnsafeMutablePointer<Int32>) {
        _ = speex_echo_ctl(state, SPEEX_ECHO_GET_IMPULSE_RESPONSE, into)
    }
}

final class PreprocessHandle {
    let state: OpaquePointer

    init(frameSize: Int, sampleRate: Int) throws(SpeexDSPError) {
        guard frameSize > 0, sampleRate > 0 else {
            throw SpeexDSPError(function: "speex_preprocess_state_init", message: "frame size \(frameSize) and rate \(sampleRate) must be positive")
        }
        guard let st = speex_preprocess_state_init(Int32(frameSize), Int32(sampleRate)) else {
            throw SpeexDSPError(function: "speex_preprocess_state_init", message: "returned NULL (out of memory?)")
        }
        state = st
    }

    deinit { speex_preprocess_state_destroy(state) }

    /// `speex_preprocess_ctl` setters take a pointer to an `Int32` (spx_int32_t) or a `Float`, by request.
    func set<Value: Numeric & BitwiseCopyable>(_ request: Int32, _ name: String, _ value: Value) throws(SpeexDSPError) {
        var v = value
        guard withUnsafeMutableBytes(of: &v, { speex_preprocess_ctl(state, request, $0.baseAddress) }) == 0 else {
            throw SpeexDSPError(function: "speex_preprocess_ctl(\(name))", message: "rejected value \(value)")
        }
    }

    func get<Value: Numeric & BitwiseCopyable>(_ request: Int32, as _: Value.Type = Value.self) -> Value {
        var v: Value = .zero
        _ = withUnsafeMutableBytes(of: &v) { speex_preprocess_ctl(state, request, $0.baseAddress) }
        return v
    }

    func setInt(_ request: Int32, _ name: String, _ value: Int32) throws(SpeexDSPError) { try set(request, name, value) }
    func getInt(_ request: Int32) -> Int32 { get(request) }
    func setFloat(_ request: Int32, _ name: String, _ value: Float) throws(SpeexDSPError) { try set(request, name, value) }
    func getFloat(_ request: Int32) -> Float { get(request) }

    /// Links the residual echo suppressor to an echo canceller (nil unlinks).
    func setEchoState(_ echo: EchoHandle?) throws(SpeexDSPError) {
        let rc = speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_ECHO_STATE, echo.map { UnsafeMutableRawPointer($0.state) })
        guard rc == 0 else {
            throw SpeexDSPError(function: "speex_preprocess_ctl(SPEEX_PREPROCESS_SET_ECHO_STATE)", message: "returned \(rc)")
        }
    }

    /// Processes in place; returns the VAD decision (meaningful only with VAD enabled).
    @inline(__always)
    func run(_ frame: UnsafeMutablePointer<Int16>) -> Bool {
        speex_preprocess_run(state, frame) != 0
    }
}

enum PreprocessRequest {
    static let denoise = SPEEX_PREPROCESS_SET_DENOISE
    static let getDenoise = SPEEX_PREPROCESS_GET_DENOISE
    static let agc = SPEEX_PREPROCESS_SET_AGC
    static let getAGC = SPEEX_PREPROCESS_GET_AGC
    static let vad = SPEEX_PREPROCESS_SET_VAD
    static let agcLevel = SPEEX_PREPROCESS_SET_AGC_LEVEL
    static let getAGCLevel = SPEEX_PREPROCESS_GET_AGC_LEVEL
    static let noiseSuppress = SPEEX_PREPROCESS_SET_NOISE_SUPPRESS
    static let getNoiseSuppress = SPEEX_PREPROCESS_GET_NOISE_SUPPRESS
    static let echoSuppress = SPEEX_PREPROCESS_SET_ECHO_SUPPRESS
    static let getEchoSuppress = SPEEX_PREPROCESS_GET_ECHO_SUPPRESS
    static let echoSuppressActive = SPEEX_PREPROCESS_SET_ECHO_SUPPRESS_ACTIVE
    static let getEchoSuppressActive = SPEEX_PREPROCESS_GET_ECHO_SUPPRESS_ACTIVE
    static let probStart = SPEEX_PREPROCESS_SET_PROB_START
    static let probContinue = SPEEX_PREPROCESS_SET_PROB_CONTINUE
    static let getProb = SPEEX_PREPROCESS_GET_PROB
}

final class ResamplerHandle {
    let state: OpaquePointer

    init(channels: Int, ratioNumerator: UInt32, ratioDenominator: UInt32, inputRate: UInt32, outputRate: UInt32, quality: Int) throws(SpeexDSPError) {
        var err: Int32 = 0
        guard let st = speex_resampler_init_frac(UInt32(channels), ratioNumerator, ratioDenominator, inputRate, outputRate, Int32(quality), &err),
            err == 0
        else {
            throw SpeexDSPError(function: "speex_resampler_init_frac", message: Self.message(err))
        }
        state = st
    }

    deinit { speex_resampler_destroy(state) }

    static func message(_ err: Int32) -> String {
        String(cString: speex_resampler_strerror(err))
    }

    func setRateFraction(numerator: UInt32, denominator: UInt32, inputRate: UInt32, outputRate: UInt32) throws(SpeexDSPError) {
        var err = speex_resampler_set_rate_frac(state, numerator, denominator, inputRate, outputRate)
        if err == Int32(RESAMPLER_ERR_OVERFLOW) {
            // speexdsp 1.2.1 rescales the filter phase with a 32-bit multiply that overflows between
            // large denominators (above ~65536), and then returns having changed num/den but not the
            // filter advance: an inconsistent state. Going through 1/1 (phase rounds to a whole
            // sample, at most one sample of jump) and then to the target always succeeds.
            _ = speex_resampler_set_rate_frac(state, 1, 1, inputRate, outputRate)
            err = speex_resampler_set_rate_frac(state, numerator, denominator, inputRate, outputRate)
        }
        guard err == 0 else {
            throw SpeexDSPError(function: "speex_resampler_set_rate_frac", message: Self.message(err))
        }
    }

    /// Returns (consumed, produced); the C call only fails on a bad channel index, which cannot happen here.
    @inline(__always)
    func process(input: UnsafePointer<Int16>?, inputCount: Int, output: UnsafeMutablePointer<Int16>, outputCapacity: Int) -> (Int, Int) {
        var inLen = UInt32(inputCount)
        var outLen = UInt32(outputCapacity)
        _ = speex_resampler_process_int(state, 0, input, &inLen, output, &outLen)
        return (Int(inLen), Int(outLen))
    }

    var inputLatency: Int { Int(speex_resampler_get_input_latency(state)) }
    var outputLatency: Int { Int(speex_resampler_get_output_latency(state)) }
    func skipZeros() { _ = speex_resampler_skip_zeros(state) }
    func reset() { _ = speex_resampler_reset_mem(state) }
}
