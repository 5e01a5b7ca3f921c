import CALSA
import CALSAShim
import Glibc

/// The only file in this module that calls alsa-lib. Every failing call becomes an `ALSAError`
/// naming the function and the device; EINTR is retried here.
enum ALSACalls {
    static func errorText(_ code: Int32) -> String {
        String(cString: snd_strerror(code))
    }

    /// Drops alsa-lib's own "ALSA lib ..." stderr lines; our errors say what failed.
    static let silenced: Void = { cshim_alsa_silence_errors(1) }()

    static func pcmHints() throws(ALSAError) -> [DeviceHint] {
        _ = silenced
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        let rc = snd_device_name_hint(-1, "pcm", &hints)
        guard rc == 0, let hints else {
            throw ALSAError(function: "snd_device_name_hint", device: "pcm", stream: nil, code: rc)
        }
        defer { snd_device_name_free_hint(hints) }
        func get(_ hint: UnsafeMutableRawPointer, _ id: String) -> String? {
            guard let value = snd_device_name_get_hint(hint, id) else { return nil }
            defer { free(value) }
            return String(cString: value)
        }
        var result: [DeviceHint] = []
        var index = 0
        while let hint = hints[index] {
            index += 1
            guard let name = get(hint, "NAME") else { continue }
            let ioid = get(hint, "IOID")
            result.append(
                DeviceHint(
                    name: name, description: get(hint, "DESC") ?? "",
                    isInput: ioid == nil || ioid == "Input", isOutput: ioid == nil || ioid == "Output"))
        }
        return result
    }
}

/// An open `snd_pcm_t`, closed in deinit. Blocking mode, S16_LE, interleaved read/write access.
final class PCMHandle {
    let pcm: OpaquePointer
    let device: PCMDevice
    let stream: PCMStream

    init(device: PCMDevice, stream: PCMStream) throws(ALSAError) {
        _ = ALSACalls.silenced
        self.device = device
        self.stream = stream
        let direction = stream == .capture ? SND_PCM_STREAM_CAPTURE : SND_PCM_STREAM_PLAYBACK
        var handle: OpaquePointer?
        var rc: Int32
        if let path = device.configFile {
            var top: OpaquePointer?
            rc = snd_config_top(&top)
            guard rc == 0, let top else {
                throw ALSAError(function: "snd_config_top", device: path, stream: stream, code: rc)
            }
            defer { snd_config_delete(top) }
            var input: OpaquePointer?
            rc = snd_input_stdio_open(&input, path, "r")
            guard rc == 0, let input else {
                throw ALSAError(function: "snd_input_stdio_open", device: path, stream: stream, code: rc)
            }
            rc = snd_config_load(top, input)
            snd_input_close(input)
            guard rc == 0 else {
                throw ALSAError(function: "snd_config_load", device: path, stream: stream, code: rc)
            }
            rc = snd_pcm_open_lconf(&handle, device.name, direction, 0, top)
            guard rc == 0, let handle else {
                throw ALSAError(function: "snd_pcm_open_lconf", device: device.name, stream: stream, code: rc)
            }
            pcm = handle
        } else {
            rc = snd_pcm_open(&handle, device.name, direction, 0)
            guard rc == 0, let handle else {
                throw ALSAError(function: "snd_pcm_open", device: device.name, stream: stream, code: rc)
            }
            pcm = handle
        }
    }

    deinit { snd_pcm_close(pcm) }

    private func fail(_ function: StaticString, _ code: Int32) -> ALSAError {
        ALSAError(function: function, device: device.name, stream: stream, code: code)
    }

    private func check(_ function: StaticString, _ code: Int32) throws(ALSAError) {
        if code < 0 { throw fail(function, code) }
    }

    func configure(_ request: PCMConfiguration) throws(ALSAError) -> PCMParameters {
        var hw: OpaquePointer?
        try check("snd_pcm_hw_params_malloc", snd_pcm_hw_params_malloc(&hw))
        guard let hw else { throw fail("snd_pcm_hw_params_malloc", -ENOMEM) }
        defer { snd_pcm_hw_params_free(hw) }
        try check("snd_pcm_hw_params_any", snd_pcm_hw_params_any(pcm, hw))
        try check("snd_pcm_hw_params_set_access", snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED))
        try check("snd_pcm_hw_params_set_format", snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE))
        try check("snd_pcm_hw_params_set_channels", snd_pcm_hw_params_set_channels(pcm, hw, UInt32(request.channels)))
        // Exact rate: every consumer (mixer, reference tap, capture chain) is built for the configured
        // rate. A device that lacks it fails here (EINVAL); `plughw:` devices convert in alsa-lib.
        var rate = UInt32(request.sampleRate)
        var dir: Int32 = 0
        try check("snd_pcm_hw_params_set_rate", snd_pcm_hw_params_set_rate(pcm, hw, rate, 0))
        var period = snd_pcm_uframes_t(max(16, Int(rate) * request.periodMicroseconds / 1_000_000))
        dir = 0
        try check("snd_pcm_hw_params_set_period_size_near", snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, &dir))
        var buffer = period * snd_pcm_uframes_t(max(2, request.periods))
        try check("snd_pcm_hw_params_set_buffer_size_near", snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &buffer))
        try check("snd_pcm_hw_params", snd_pcm_hw_params(pcm, hw))
        dir = 0
        try check("snd_pcm_hw_params_get_period_size", snd_pcm_hw_params_get_period_size(hw, &period, &dir))
        try check("snd_pcm_hw_params_get_buffer_size", snd_pcm_hw_params_get_buffer_size(hw, &buffer))
        dir = 0
        try check("snd_pcm_hw_params_get_rate", snd_pcm_hw_params_get_rate(hw, &rate, &dir))
        let parameters = PCMParameters(
            sampleRate: Int(rate), channels: request.channels, periodFrames: Int(period), bufferFrames: Int(buffer))

        var sw: OpaquePointer?
        try check("snd_pcm_sw_params_malloc", snd_pcm_sw_params_malloc(&sw))
        guard let sw else { throw fail("snd_pcm_sw_params_malloc", -ENOMEM) }
        defer { snd_pcm_sw_params_free(sw) }
        try check("snd_pcm_sw_params_current", snd_pcm_sw_params_current(pcm, sw))
        let start = stream == .capture ? 1 : min(buffer, snd_pcm_uframes_t(request.startThresholdFrames ?? Int(buffer)))
        try check("snd_pcm_sw_params_set_start_threshold", snd_pcm_sw_params_set_start_threshold(pcm, sw, start))
        try check("snd_pcm_sw_params_set_avail_min", snd_pcm_sw_params_set_avail_min(pcm, sw, period))
        try check("snd_pcm_sw_params", snd_pcm_sw_params(pcm, sw))
        return parameters
    }

    /// Reads exactly `frames` frames into `buffer` (interleaved), retrying short reads, EINTR and EAGAIN.
    func read(_ buffer: UnsafeMutablePointer<Int16>, frames: Int, channels: Int) throws(ALSAError) {
        try transfer("snd_pcm_readi", frames: frames) { done, left in
            snd_pcm_readi(pcm, buffer + done * channels, left)
        }
    }

    /// Writes exactly `frames` frames from `buffer` (interleaved), retrying short writes, EINTR and EAGAIN.
    func write(_ buffer: UnsafePointer<Int16>, frames: Int, channels: Int) throws(ALSAError) {
        try transfer("snd_pcm_writei", frames: frames) { done, left in
            snd_pcm_writei(pcm, buffer + done * channels, left)
        }
    }

    /// The retry loop shared by read and write; `io(framesDone, framesLeft)` is one readi/writei call.
    /// The closure is non-escaping, so the realtime threads' period loop does not allocate here.
    private func transfer(
        _ function: StaticString, frames: Int, _ io: (Int, snd_pcm_uframes_t) -> snd_pcm_sframes_t
    ) throws(ALSAError) {
        var done = 0
        while done < frames {
            let n = io(done, snd_pcm_uframes_t(frames - done))
            if n >= 0 {
                done += Int(n)
            } else if n == -Int(EINTR) {
                continue
            } else if n == -Int(EAGAIN) {
                _ = snd_pcm_wait(pcm, 100)
            } else {
                throw fail(function, Int32(n))
            }
        }
    }

    func delay() throws(ALSAError) -> Int {
        var frames: snd_pcm_sframes_t = 0
        try check("snd_pcm_delay", snd_pcm_delay(pcm, &frames))
        return Int(frames)
    }

    func avail() throws(ALSAError) -> Int {
        let n = snd_pcm_avail(pcm)
        if n < 0 { throw fail("snd_pcm_avail", Int32(n)) }
        return Int(n)
    }

    func rewindable() throws(ALSAError) -> Int {
        let n = snd_pcm_rewindable(pcm)
        if n < 0 { throw fail("snd_pcm_rewindable", Int32(n)) }
        return Int(n)
    }

    func rewind(frames: Int) throws(ALSAError) -> Int {
        let n = snd_pcm_rewind(pcm, snd_pcm_uframes_t(max(0, frames)))
        if n < 0 { throw fail("snd_pcm_rewind", Int32(n)) }
        return Int(n)
    }

    func wait(milliseconds: Int32) throws(ALSAError) -> Bool {
        while true {
            let rc = snd_pcm_wait(pcm, milliseconds)
            if rc == -EINTR { continue }
            try check("snd_pcm_wait", rc)
            return rc > 0
        }
    }

    func prepare() throws(ALSAError) { try check("snd_pcm_prepare", snd_pcm_prepare(pcm)) }
    func start() throws(ALSAError) { try check("snd_pcm_start", snd_pcm_start(pcm)) }
    func drop() throws(ALSAError) { try check("snd_pcm_drop", snd_pcm_drop(pcm)) }
    func drain() throws(ALSAError) { try check("snd_pcm_drain", snd_pcm_drain(pcm)) }

    /// snd_pcm_resume; returns false while the device is still waking up (-EAGAIN).
    func resume() throws(ALSAError) -> Bool {
        let rc = snd_pcm_resume(pcm)
        if rc == -EAGAIN { return false }
        try check("snd_pcm_resume", rc)
        return true
    }

    var state: PCMState {
        switch snd_pcm_state(pcm) {
        case SND_PCM_STATE_OPEN: return .open
        case SND_PCM_STATE_SETUP: return .setup
        case SND_PCM_STATE_PREPARED: return .prepared
        case SND_PCM_STATE_RUNNING: return .running
        case SND_PCM_STATE_XRUN: return .xrun
        case SND_PCM_STATE_DRAINING: return .draining
        case SND_PCM_STATE_PAUSED: return .paused
        case SND_PCM_STATE_SUSPENDED: return .suspended
        case SND_PCM_STATE_DISCONNECTED: return .disconnected
        default: return .unknown
        }
    }
}
