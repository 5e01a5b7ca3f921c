import ALSA
import AudioCore
import Glibc
import Synchronization

/// What capture and playback loops share: the thread, the stop flag, the event ring, the status.
final class PeriodLoopCore: Sendable {
    let status = AudioLoopStatus()
    private let events: SPSCRing<AudioLoopEvent>
    private let stopRequested = Atomic<Bool>(false)
    private let relaxedFlag = Atomic<Bool>(false)
    private let thread = Mutex<RealtimeThread?>(nil)

    init(eventCapacity: Int) {
        events = SPSCRing(capacity: max(8, eventCapacity), zero: .none)
    }

    var isStopping: Bool { stopRequested.load(ordering: .acquiring) }

    /// No conversation needs the short path: the loop may batch periods (set from any thread).
    var isRelaxed: Bool {
        get { relaxedFlag.load(ordering: .relaxed) }
        set { relaxedFlag.store(newValue, ordering: .relaxed) }
    }

    func start(
        name: String, fifoPriority: Int32?, body: @escaping @Sendable () -> Void
    ) throws(RealtimeThreadError) -> String? {
        try thread.withLock { (current: inout RealtimeThread?) throws(RealtimeThreadError) -> String? in
            precondition(current == nil, "\(name) already started")
            stopRequested.store(false, ordering: .releasing)
            let started = try RealtimeThread(name: name, fifoPriority: fifoPriority, body: body)
            current = started
            return started.schedulingNotice
        }
    }

    func stop() {
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

    /// Reader side (one thread): the next event, if any.
    func nextEvent() -> AudioLoopEvent? {
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

/// Interleaved/deinterleaved scratch memory for one period, grown only when a (re)open negotiates
/// a larger period; never touched by the allocator inside the period loop.
final class PeriodBuffers {
    private(set) var interleaved = UnsafeMutableBufferPointer<Int16>(start: nil, count: 0)
    private(set) var mono = UnsafeMutableBufferPointer<Int16>(start: nil, count: 0)
    private(set) var reference = UnsafeMutableBufferPointer<Int16>(start: nil, count: 0)

    func ensure(_ parameters: PCMParameters) {
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
        mono.deallocate()
        reference.deallocate()
    }
}
