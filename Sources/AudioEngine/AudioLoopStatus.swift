import ALSA
import AudioCore
import Glibc
import Synchronization

/// Something a period loop wants logged. It travels from the realtime thread to a non-realtime
/// reader through an SPSC ring, so it is plain bits: no strings, no references.
public struct AudioLoopEvent: Sendable, BitwiseCopyable {
    public enum Kind: UInt8, Sendable, BitwiseCopyable {
        case none
        /// The device opened; `parameters` holds the negotiated shape. `code` is 1 for a reopen.
        case opened
        /// Underrun (playback) or overrun (capture), recovered.
        case xrun
        /// The device was suspended and resumed.
        case suspended
        /// The device vanished (or failed in a way that needs a reopen); `code` is the errno. The loop
        /// retries at most every `backoffMilliseconds` and reports `opened` when it is back.
        case disconnected
        /// Opening (or configuring) the device failed; the loop retries at most every
        /// `backoffMilliseconds`. Reported once per outage (again only when the reason changes).
        case openFailed
        /// Recovery after an xrun failed; the loop reopens the device.
        case recoveryFailed
        /// Playback: the device ran dry while the loop took back the paused voice (the queue it left, the
        /// period playing, played out before the replacement was written), recovered.
        case takeBackUnderrun
    }

    public var kind: Kind
    /// The alsa-lib function that failed (for error events).
    public var function: StaticString
    /// Negative errno where relevant, else 0 (1 on `opened` after a reopen).
    public var code: Int32
    public var sampleRate: Int32
    public var channels: Int32
    public var periodFrames: Int32
    public var bufferFrames: Int32
    public var backoffMilliseconds: Int32
    /// CLOCK_MONOTONIC nanoseconds.
    public var atNanoseconds: Int64

    public static let none = AudioLoopEvent(kind: .none, code: 0, at: 0)

    init(kind: Kind, code: Int32, at: Int64, parameters: PCMParameters? = nil, backoffMilliseconds: Int = 0) {
        self.kind = kind
        self.function = ""
        self.code = code
        self.atNanoseconds = at
        sampleRate = Int32(parameters?.sampleRate ?? 0)
        channels = Int32(parameters?.channels ?? 0)
        periodFrames = Int32(parameters?.periodFrames ?? 0)
        bufferFrames = Int32(parameters?.bufferFrames ?? 0)
        self.backoffMilliseconds = Int32(backoffMilliseconds)
    }

    init(_ kind: Kind, _ error: ALSAError, at: Int64, backoffMilliseconds: Int = 0) {
        self.init(kind: kind, code: error.code, at: at, backoffMilliseconds: backoffMilliseconds)
        function = error.function
    }

    /// The alsa-lib call behind a failure, in the library's words (a debug line); nil for other events.
    public func libraryDetail(device: PCMDevice, stream: PCMStream) -> String? {
        code < 0 ? ALSAError(function: function, device: device.name, stream: stream, code: code).description : nil
    }

    /// A log line for the owner (call this off the realtime thread).
    public func message(device: PCMDevice, stream: PCMStream) -> String {
        let what = "\(stream) device \(device.name)"
        let reason = code < 0 ? ALSAError(function: function, device: device.name, stream: stream, code: code).plainReason : ""
        switch kind {
        case .none: return "\(what): no event"
        case .opened:
            return "\(what) \(code == 1 ? "reopened" : "opened"): \(sampleRate) Hz, \(channels) ch, "
                + "period \(periodFrames) frames, buffer \(bufferFrames) frames"
        case .xrun: return "\(what): \(stream == .capture ? "overrun" : "underrun"), recovered"
        case .suspended: return "\(what): suspended, resumed"
        case .disconnected: return "\(what) lost: \(reason); waiting for it to come back (\(retries))"
        case .openFailed: return "\(what) unavailable: \(reason); waiting for it (\(retries))"
        case .recoveryFailed: return "\(what): recovery failed: \(reason); reopening"
        case .takeBackUnderrun:
            return "\(what): underrun while taking back the paused voice (the period left playing ran out before "
                + "the rest was rewritten: the playback thread ran late), recovered"
        }
    }

    private var retries: String {
        let ms = Int(backoffMilliseconds)
        let every = ms >= 1000 && ms % 1000 == 0 ? "\(ms / 1000) s" : "\(ms) ms"
        return "retrying every \(every) at most; the next line says when it is open"
    }
}

/// Counters and heartbeat of one period loop, written by its realtime thread, read by anyone.
public final class AudioLoopStatus: Sendable {
    let framesCounter = Atomic<Int>(0)
    let xrunsCounter = Atomic<Int>(0)
    let reopensCounter = Atomic<Int>(0)
    let openFailuresCounter = Atomic<Int>(0)
    let heartbeat = Atomic<Int64>(0)
    let delayFramesValue = Atomic<Int>(0)
    let runningFlag = Atomic<Bool>(false)
    let takeBacksCounter = Atomic<Int>(0)
    let framesTakenBackCounter = Atomic<Int>(0)
    let takeBackUnderrunsCounter = Atomic<Int>(0)

    public init() {}

    /// Frames read (capture) or written (playback) since the loop started, over all reopens.
    public var frames: Int { framesCounter.load(ordering: .relaxed) }
    public var xruns: Int { xrunsCounter.load(ordering: .relaxed) }
    /// Successful opens after the first one.
    public var reopens: Int { reopensCounter.load(ordering: .relaxed) }
    public var openFailures: Int { openFailuresCounter.load(ordering: .relaxed) }
    /// CLOCK_MONOTONIC nanoseconds at the end of the last completed period (0 before the first);
    /// a watchdog compares it with now.
    public var lastPeriodNanoseconds: Int64 { heartbeat.load(ordering: .relaxed) }
    /// The device delay measured after the last period (snd_pcm_delay), in frames.
    public var delayFrames: Int { delayFramesValue.load(ordering: .relaxed) }
    /// True while the device is open and periods flow.
    public var isRunning: Bool { runningFlag.load(ordering: .relaxed) }
    /// Playback: how often queued frames were taken back and rewritten (`PlaybackTakeBack`), and how many.
    public var takeBacks: Int { takeBacksCounter.load(ordering: .relaxed) }
    public var framesTakenBack: Int { framesTakenBackCounter.load(ordering: .relaxed) }
    /// Playback: xruns (counted in `xruns` too) in which the device ran dry during a take-back, before the
    /// replacement reached it: the one underrun a take-back itself can cause.
    public var takeBackUnderruns: Int { takeBackUnderrunsCounter.load(ordering: .relaxed) }
}

/// CLOCK_MONOTONIC in nanoseconds (the clock ALSA timestamps and our heartbeats use).
@inline(__always)
public func monotonicNanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}
