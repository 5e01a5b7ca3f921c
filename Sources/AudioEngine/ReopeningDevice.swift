import ALSA
import AudioCore
import Basics

/// The device side of a period loop, one for `CaptureLoop` and `PlaybackLoop` alike: opens the PCM,
/// recovers xruns and suspends in place, closes a vanished device and reopens it with capped
/// exponential backoff, and reports each of these as one event.
///
/// A device that stays away is reported once, with what the loop waits for (`disconnected`, or
/// `openFailed` when it was never there), and once when it is back (`opened`); the retries in between
/// are counted (`AudioLoopStatus.openFailures`), not reported, unless a retry fails for a different
/// reason than the one last reported.
///
/// Lives on the loop's realtime thread. It allocates only when it (re)opens the device.
final class ReopeningDevice {
    let device: PCMDevice
    let stream: PCMStream
    private let configuration: PCMConfiguration
    private var backoff: Backoff
    private let loop: PeriodLoop
    private(set) var pcm: PCM?
    private var opens = 0
    /// Which uninterrupted run of the stream the open PCM is in: changes at every (re)open and every
    /// in-place recovery, after which the device plays from a fresh start (the reference tap maps
    /// each run to time on its own).
    private(set) var run = 0
    /// The failure last reported during the current outage; nil while the device is open.
    private var reportedFailure: Int32?

    init(device: PCMDevice, stream: PCMStream, configuration: PCMConfiguration, backoff: Backoff, loop: PeriodLoop) {
        self.device = device
        self.stream = stream
        self.configuration = configuration
        self.backoff = backoff
        self.loop = loop
    }

    /// The open PCM, opening it first when needed; `opened` runs once per successful (re)open, before
    /// the first period. nil: not open (the backoff has been waited out); the loop checks for a stop and
    /// asks again.
    func open(_ opened: (PCMParameters) -> Void) -> PCM? {
        if let pcm { return pcm }
        do {
            let fresh = try PCM(device: device, stream: stream, configuration: configuration)
            opens += 1
            run += 1
            if opens > 1 { loop.status.reopensCounter.add(1, ordering: .relaxed) }
            opened(fresh.parameters)
            loop.emit(AudioLoopEvent(kind: .opened, code: opens > 1 ? 1 : 0, at: monotonicNanoseconds(), parameters: fresh.parameters))
            loop.status.runningFlag.store(true, ordering: .relaxed)
            reportedFailure = nil
            pcm = fresh
            return fresh
        } catch {
            loop.status.openFailuresCounter.add(1, ordering: .relaxed)
            if reportedFailure != Self.failureKey(error) {
                reportedFailure = Self.failureKey(error)
                loop.emit(AudioLoopEvent(.openFailed, error, at: monotonicNanoseconds(), backoffMilliseconds: Int(backoff.maximum.wholeMilliseconds)))
            }
            waitOutBackoff()
            return nil
        }
    }

    /// A read, write, avail or delay call failed. Returns true when the stream was recovered in place
    /// (xrun, suspend: the caller may retry the call); false when the device was closed (the backoff
    /// has been waited out; the next `open` reopens it). `takingBack`: the call wrote a take-back's
    /// replacement (an xrun there is the take-back's own).
    func recover(from error: ALSAError, takingBack: Bool = false) -> Bool {
        guard let pcm else { return false }
        switch error.kind {
        case .xrun, .suspended:
            do {
                try pcm.recover(from: error)
                run += 1
                loop.status.xrunsCounter.add(1, ordering: .relaxed)
                let kind: AudioLoopEvent.Kind = error.kind == .suspended ? .suspended : takingBack ? .takeBackUnderrun : .xrun
                if kind == .takeBackUnderrun { loop.status.takeBackUnderrunsCounter.add(1, ordering: .relaxed) }
                loop.emit(AudioLoopEvent(kind, error, at: monotonicNanoseconds()))
                return true
            } catch {
                loop.emit(AudioLoopEvent(.recoveryFailed, error, at: monotonicNanoseconds()))
                reportedFailure = Self.failureKey(error)
            }
        default:
            loop.emit(AudioLoopEvent(.disconnected, error, at: monotonicNanoseconds(), backoffMilliseconds: Int(backoff.maximum.wholeMilliseconds)))
            reportedFailure = Self.failureKey(error)
        }
        self.pcm = nil
        loop.status.runningFlag.store(false, ordering: .relaxed)
        waitOutBackoff()
        return false
    }

    /// A period completed: the next outage starts from the shortest backoff again.
    func succeeded() { backoff.reset() }

    func close() {
        pcm = nil
        loop.status.runningFlag.store(false, ordering: .relaxed)
    }

    private func waitOutBackoff() {
        _ = loop.sleep(milliseconds: Int(backoff.nextMilliseconds()))
    }

    /// Every way of saying "the device is not there" (ENODEV from I/O, ENOENT or ENODEV from open) is
    /// one failure: the retries of an unplugged device stay quiet after the first line.
    private static func failureKey(_ error: ALSAError) -> Int32 {
        error.kind == .disconnected ? Int32.min : error.code
    }
}
