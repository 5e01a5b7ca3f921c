import Glibc

/// An open, configured PCM (capture or playback): S16_LE interleaved, blocking, whole periods.
///
/// Not thread-safe: one thread (normally `rt:capture` or `rt:playback`) owns it. `read`, `write`,
/// `delay`, `avail`, `rewind` and `recover` neither allocate nor lock in Swift (alsa-lib takes its own mutex
/// around a PCM), so they may run in the period loop. The device closes when the value is released.
public final class PCM {
    public let device: PCMDevice
    public let stream: PCMStream
    /// What the device agreed to (rate, channels, period and buffer frames).
    public let parameters: PCMParameters
    private let handle: PCMHandle

    /// Opens `device` and negotiates S16_LE interleaved with `configuration`.
    public init(device: PCMDevice, stream: PCMStream, configuration: PCMConfiguration) throws(ALSAError) {
        let handle = try PCMHandle(device: device, stream: stream)
        self.handle = handle
        self.device = device
        self.stream = stream
        parameters = try handle.configure(configuration)
    }

    /// Fills `buffer` with `buffer.count / channels` frames (normally one period), blocking until
    /// they are captured. Throws on xrun, suspend or disconnect; see `recover(from:)`.
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws(ALSAError) {
        guard let base = buffer.baseAddress else { return }
        try handle.read(base, frames: buffer.count / parameters.channels, channels: parameters.channels)
    }

    /// Queues all of `buffer` (interleaved frames), blocking while the device buffer is full.
    public func write(_ buffer: UnsafeBufferPointer<Int16>) throws(ALSAError) {
        guard let base = buffer.baseAddress else { return }
        try handle.write(base, frames: buffer.count / parameters.channels, channels: parameters.channels)
    }

    /// Playback: frames queued that have not been heard yet. Capture: frames captured not yet read.
    public func delay() throws(ALSAError) -> Int { try handle.delay() }

    /// Frames that can be written (playback) or read (capture) without blocking.
    public func avail() throws(ALSAError) -> Int { try handle.avail() }

    /// Playback: queued frames the application may still take back (`rewind`) before they are heard.
    public func rewindable() throws(ALSAError) -> Int { try handle.rewindable() }

    /// Playback: takes back up to `frames` of the most recently written, not yet heard frames; the next
    /// write replaces them. Returns the frames taken back (possibly fewer).
    public func rewind(frames: Int) throws(ALSAError) -> Int { try handle.rewind(frames: frames) }

    /// Waits until a period is ready or `milliseconds` pass; returns false on timeout.
    public func wait(milliseconds: Int) throws(ALSAError) -> Bool { try handle.wait(milliseconds: Int32(milliseconds)) }

    public func prepare() throws(ALSAError) { try handle.prepare() }
    public func start() throws(ALSAError) { try handle.start() }
    /// Stops at once, discarding queued frames.
    public func drop() throws(ALSAError) { try handle.drop() }
    /// Playback: blocks until every queued frame has been played, then stops.
    public func drain() throws(ALSAError) { try handle.drain() }

    public var state: PCMState { handle.state }

    /// Brings the stream back after `error` so the period loop can continue:
    /// xrun -> prepare (and start, for capture); suspended -> resume until it stops answering
    /// EAGAIN, then prepare; disconnected -> rethrows, the caller closes and reopens the device.
    /// Any other error is rethrown as well.
    public func recover(from error: ALSAError) throws(ALSAError) {
        switch error.kind {
        case .xrun:
            try restart()
        case .suspended:
            // snd_pcm_resume answers EAGAIN while the hardware wakes up; devices that cannot
            // resume answer an error, and a prepare restarts them instead.
            for _ in 0..<100 {
                let resumed: Bool
                do { resumed = try handle.resume() } catch { break }
                if resumed { break }
                usleep(10_000)
            }
            if state != .running { try restart() }
        case .disconnected, .busy, .other:
            switch state {
            case .xrun: try restart()
            default: throw error
            }
        }
    }

    private func restart() throws(ALSAError) {
        try handle.prepare()
        if stream == .capture { try handle.start() }
    }
}
