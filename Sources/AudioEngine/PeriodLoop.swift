import ALSA
import AudioCore
import Basics
import Glibc
import Synchronization

/// What `CaptureLoop` and `PlaybackLoop` share: the realtime thread and its start/stop, the stop flag,
/// the relaxed flag, the event ring, the status and the device (a `ReopeningDevice` on the thread). A
/// subclass supplies `serve`, one wakeup's work on the open device.
///
/// `@unchecked Sendable`: every stored property is immutable or synchronized (atomics, a mutex, the
/// SPSC ring with one writer, the realtime thread, and one reader).
public class PeriodLoop: @unchecked Sendable {
    /// Counters and heartbeat, written by the realtime thread, read by anyone.
    public let status = AudioLoopStatus()
    let threadName: String
    let fifoPriority: Int32?
    private let device: PCMDevice
    private let stream: PCMStream
    private let pcmConfiguration: PCMConfiguration
    private let backoff: Backoff
    private let events: SPSCRing<AudioLoopEvent>
    private let stopRequested = Atomic<Bool>(false)
    private let relaxedFlag = Atomic<Bool>(false)
    private let thread = Mutex<RealtimeThread?>(nil)

    init(
        device: PCMDevice, stream: PCMStream, pcm: PCMConfiguration, backoff: Backoff,
        threadName: String, fifoPriority: Int32?, eventCapacity: Int
    ) {
        self.device = device
        self.stream = stream
        pcmConfiguration = pcm
        self.backoff = backoff
        self.threadName = threadName
        self.fifoPriority = fifoPriority
        events = SPSCRing(capacity: max(8, eventCapacity), zero: .none)
    }

    /// The thread's body: keeps the device open and calls `serve` until a stop, then closes it.
    private func run() {
        let buffers = PeriodBuffers()
        let device = ReopeningDevice(
            device: device, stream: stream, configuration: pcmConfiguration, backoff: backoff, loop: self)
        var frameIndex = 0
        while !isStopping {
            guard let pcm = device.open({ buffers.ensure($0, wholeBuffer: stream == .playback) }) else { continue }
            serve(pcm, buffers: buffers, device: device, frameIndex: &frameIndex)
        }
        device.close()
    }

    /// One wakeup's work on the open device (the subclass's): read or write one or more periods, or
    /// sleep until there is work; hand failed calls to `device.recover(from:)`. `frameIndex` counts the
    /// frames moved since the loop started, over reopens.
    func serve(_ pcm: PCM, buffers: PeriodBuffers, device: ReopeningDevice, frameIndex: inout Int) {}

    var isStopping: Bool { stopRequested.load(ordering: .acquiring) }

    /// No conversation needs the short path: the loop batches periods (capture: `relaxedBatchPeriods`,
    /// playback: `relaxedFillPeriods`). Any thread; takes effect at the loop's next wakeup (what playback
    /// has queued by then plays out first).
    public var isRelaxed: Bool {
        get { relaxedFlag.load(ordering: .relaxed) }
        set { relaxedFlag.store(newValue, ordering: .relaxed) }
    }

    /// Starts the thread; returns a scheduling notice to log when SCHED_FIFO was refused.
    @discardableResult
    public func start() throws(RealtimeThreadError) -> String? {
        try thread.withLock { (current: inout RealtimeThread?) throws(RealtimeThreadError) -> String? in
            precondition(current == nil, "\(threadName) already started")
            stopRequested.store(false, ordering: .releasing)
            let started = try RealtimeThread(name: threadName, fifoPriority: fifoPriority) { [self] in run() }
            current = started
            return started.schedulingNotice
        }
    }

    /// Asks the loop to stop (within about a period, or a relaxed batch) and joins the thread, which
    /// closes the device.
    public func stop() {
        stopRequested.store(true, ordering: .releasing)
        let running = thread.withLock { current -> RealtimeThread? in
            defer { current = nil }
            return current
        }
        running?.join()
    }

    /// Realtime side: queue an event; dropped if the reader is far behind (counters still count).
    func emit(_ event: AudioLoopEvent) {
        withUnsafePointer(to: event) { _ = events.write(UnsafeBufferPointer(start: $0, count: 1)) }
    }

    /// The next event for the log; call from one non-realtime thread only.
    public func nextEvent() -> AudioLoopEvent? {
        var event = AudioLoopEvent.none
        let n = withUnsafeMutablePointer(to: &event) { events.read(into: UnsafeMutableBufferPointer(start: $0, count: 1)) }
        return n == 1 ? event : nil
    }

    /// Sleeps while `frames` frames pass at `sampleRate` (at least 0.5 ms, at most 250 ms, so a stop is
    /// seen within that): the period loops' own pacing, one wakeup per batch of periods.
    func nap(frames: Int, sampleRate: Int) {
        let nanoseconds = min(250_000_000, max(500_000, frames * 1_000_000_000 / max(1, sampleRate)))
        var request = timespec(tv_sec: 0, tv_nsec: nanoseconds)
        var remaining = timespec()
        while clock_nanosleep(CLOCK_MONOTONIC, 0, &request, &remaining) == EINTR { request = remaining }
    }

    /// Sleeps `milliseconds` in 5 ms slices; returns false early when a stop was requested.
    func sleep(milliseconds: Int) -> Bool {
        var left = milliseconds
        while left > 0 {
            if isStopping { return false }
            let slice = min(left, 5)
            usleep(UInt32(slice * 1000))
            left -= slice
        }
        return !isStopping
    }
}

/// Interleaved/deinterleaved scratch memory for one period (and, for playback, the whole device buffer:
/// what a take-back rewrites), grown only when a (re)open negotiates a larger period; never touched by
/// the allocator inside the period loop.
final class PeriodBuffers {
    private(set) var interleaved = UnsafeMutableBufferPointer<Int16>(start: nil, count: 0)
    private(set) var whole = UnsafeMutableBufferPointer<Int16>(start: nil, count: 0)
    private(set) var mono = UnsafeMutableBufferPointer<Int16>(start: nil, count: 0)
    private(set) var reference = UnsafeMutableBufferPointer<Int16>(start: nil, count: 0)

    func ensure(_ parameters: PCMParameters, wholeBuffer: Bool = false) {
        let wholeSamples = wholeBuffer ? parameters.bufferFrames * parameters.channels : 0
        if whole.count != wholeSamples {
            whole.deallocate()
            whole = .allocate(capacity: wholeSamples)
            whole.initialize(repeating: 0)
        }
        let samples = parameters.periodSamples
        if interleaved.count != samples {
            interleaved.deallocate()
            interleaved = .allocate(capacity: samples)
            interleaved.initialize(repeating: 0)
        }
        if mono.count != parameters.periodFrames {
            mono.deallocate()
            reference.deallocate()
            mono = .allocate(capacity: parameters.periodFrames)
            mono.initialize(repeating: 0)
            reference = .allocate(capacity: parameters.periodFrames)
            reference.initialize(repeating: 0)
        }
    }

    deinit {
        interleaved.deallocate()
        whole.deallocate()
        mono.deallocate()
        reference.deallocate()
    }
}
