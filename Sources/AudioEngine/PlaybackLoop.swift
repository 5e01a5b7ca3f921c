import ALSA
import AudioCore
import Basics

/// How the playback loop opens and fills its device. Defaults: 48 kHz stereo, 10 ms periods, 4 periods,
/// kept full (the short voice path).
public struct PlaybackLoopConfiguration: Sendable {
    public var device: PCMDevice
    public var pcm: PCMConfiguration
    /// Receives what was written plus the device delay, for echo-reference alignment. nil: none.
    public var referenceTap: ReferenceTap?
    public var threadName: String
    /// SCHED_FIFO priority to ask for; nil: normal scheduling. Default 70.
    public var fifoPriority: Int32?
    public var backoff: Backoff
    public var eventCapacity: Int
    /// The short path (a conversation): at most this many periods queued; a period is written each time
    /// one has played. nil: the whole device buffer.
    public var fillPeriods: Int?
    /// While the loop is relaxed (`isRelaxed`, no conversation): sleep until only `lowerBound` periods
    /// are queued, then top up to `upperBound` in one go (one wakeup per `upperBound - lowerBound`
    /// periods). nil: never relax. The device buffer must hold `upperBound` periods.
    public var relaxedFillPeriods: ClosedRange<Int>?
    /// What the renderer can take back from the device before it is heard (a paused voice: the mixer).
    /// nil: what was written plays out.
    public var takeBack: (any PlaybackTakeBack)?
    /// Told when what was just written will be heard, on `rt:playback` after every write of a running
    /// device (the mixer's stamp for synchronized playback). Must be realtime-safe.
    public var clockObserver: (@Sendable (PlaybackClock) -> Void)?

    public init(
        device: PCMDevice, pcm: PCMConfiguration = PCMConfiguration(), referenceTap: ReferenceTap? = nil,
        threadName: String = "rt:playback", fifoPriority: Int32? = 70, backoff: Backoff = .deviceReopen,
        eventCapacity: Int = 256, fillPeriods: Int? = nil, relaxedFillPeriods: ClosedRange<Int>? = nil,
        takeBack: (any PlaybackTakeBack)? = nil, clockObserver: (@Sendable (PlaybackClock) -> Void)? = nil
    ) {
        self.device = device
        self.pcm = pcm
        self.referenceTap = referenceTap
        self.threadName = threadName
        self.fifoPriority = fifoPriority
        self.backoff = backoff
        self.eventCapacity = eventCapacity
        self.fillPeriods = fillPeriods
        self.relaxedFillPeriods = relaxedFillPeriods
        self.takeBack = takeBack
        self.clockObserver = clockObserver
    }
}

/// What a playback loop's renderer can take back from the device once written (`snd_pcm_rewind`): at each
/// wakeup the loop asks how many of the frames still queued beyond the one playing now to replace, rewinds
/// them and writes the replacement. Called on `rt:playback` only; must not allocate, lock, log or await.
public protocol PlaybackTakeBack: AnyObject, Sendable {
    /// The loop woke up (before anything else it does at that wakeup).
    func wake()
    /// How many of the last rendered frames to replace now, at most `limit`; 0: none.
    func framesToTakeBack(limit: Int) -> Int
    /// The replacement for the last `frames` rendered frames (at most what `framesToTakeBack` returned).
    func takeBack(frames: Int, into output: UnsafeMutableBufferPointer<Int16>)
    /// The last rendered period was not written: nothing rendered before it can be taken back.
    func renderedPeriodLost()
}

extension Mixer: PlaybackTakeBack {
    public func wake() {}
}

/// One period to fill. The buffer arrives zeroed (silence if the renderer leaves it alone).
public struct PlaybackPeriod {
    /// Interleaved, `parameters.periodSamples` samples.
    public let buffer: UnsafeMutableBufferPointer<Int16>
    public let parameters: PCMParameters
    /// Frames written before this period since the loop started (over reopens).
    public let firstFrameIndex: Int
}

/// Runs on `rt:playback`, once per period. It must not allocate, lock, log or await.
public typealias PlaybackRenderer = @Sendable (PlaybackPeriod) -> Void

/// The playback device loop: renders and writes period by period on its own realtime thread, feeds the
/// reference tap, and leaves opening, xrun recovery and reopening to `ReopeningDevice`.
///
/// It paces itself: it sleeps until the queue falls to its wake mark, then renders and writes periods
/// until the queue reaches its fill. On the short path that is one period per period (as a blocking
/// write into a buffer of `fillPeriods`); relaxed, one wakeup writes many periods into a deeper buffer.
/// `status.frames` are frames written; `frames - delayFrames` approximates frames heard (barge-in truncation).
public final class PlaybackLoop: PeriodLoop, @unchecked Sendable {
    public let configuration: PlaybackLoopConfiguration
    private let renderer: PlaybackRenderer

    public init(configuration: PlaybackLoopConfiguration, renderer: @escaping PlaybackRenderer) {
        self.configuration = configuration
        self.renderer = renderer
        super.init(
            device: configuration.device, stream: .playback, pcm: configuration.pcm, backoff: configuration.backoff,
            threadName: configuration.threadName, fifoPriority: configuration.fifoPriority,
            eventCapacity: configuration.eventCapacity)
    }

    override func serve(_ pcm: PCM, buffers: PeriodBuffers, device: ReopeningDevice, frameIndex: inout Int) {
        let parameters = pcm.parameters
        let (wake, fill) = fillMarks(parameters)
        do {
            var queued = max(0, parameters.bufferFrames - (try pcm.avail()))
            if let takeBack = configuration.takeBack {
                takeBack.wake()
                if pcm.state == .running {
                    switch try takeBackQueued(pcm, takeBack, buffers: buffers, device: device) {
                    case .nothing: break
                    case .replaced(let delay): if let delay { queued = delay }
                    case .ranDry: return
                    }
                }
            }
            if queued > wake {
                if pcm.state == .running {
                    nap(frames: queued - wake, sampleRate: parameters.sampleRate)
                    return
                }
                try pcm.start()  // queued past a start threshold it could not reach by itself
            }
            repeat {
                guard let delay = writePeriod(pcm, buffers: buffers, frameIndex: frameIndex, device: device) else { break }
                device.succeeded()
                frameIndex += parameters.periodFrames
                queued = delay
            } while queued + parameters.periodFrames <= fill && !isStopping
        } catch {
            _ = device.recover(from: error)
        }
    }

    private enum TakeBackOutcome {
        case nothing
        /// The device delay after, when it could be measured.
        case replaced(delay: Int?)
        /// The period left playing ran out before the replacement was written; the device was recovered.
        case ranDry
    }

    /// Replaces what the renderer takes back of the queue beyond the period playing now (it plays on while
    /// this runs): rewinds the device, writes the replacement and tells the reference tap.
    private func takeBackQueued(
        _ pcm: PCM, _ takeBack: any PlaybackTakeBack, buffers: PeriodBuffers,
        device: ReopeningDevice
    ) throws(ALSAError) -> TakeBackOutcome {
        let parameters = pcm.parameters
        let step = configuration.referenceTap?.takeBackGranularity ?? 1
        // Asking the renderer first spares the device call in every period without a pause.
        let most = takeBack.framesToTakeBack(limit: buffers.whole.count / parameters.channels)
        guard most > 0 else { return .nothing }
        var limit = min(try pcm.rewindable() - parameters.periodFrames, most)
        limit -= limit % step
        guard limit > 0 else { return .nothing }
        var frames = takeBack.framesToTakeBack(limit: limit)
        frames -= frames % step
        guard frames > 0 else { return .nothing }
        // A device may take back fewer frames than asked; the renderer replaces what it did.
        let back = min(try pcm.rewind(frames: frames), frames)
        guard back > 0 else { return .nothing }
        let replacement = UnsafeMutableBufferPointer(rebasing: buffers.whole[0..<(back * parameters.channels)])
        takeBack.takeBack(frames: back, into: replacement)
        // (A device that took back a count off the tap's step leaves the reference a fraction of a sample
        // off: the tap goes back by whole samples.)
        configuration.referenceTap?.playbackTookBack(frames: back - back % step)
        status.takeBacksCounter.add(1, ordering: .relaxed)
        status.framesTakenBackCounter.add(back, ordering: .relaxed)
        do {
            try pcm.write(UnsafeBufferPointer(replacement))
        } catch  where error.kind == .xrun {
            // The replacement is lost with the rest of the queue: the paused voice is silent all the same.
            takeBack.renderedPeriodLost()
            _ = device.recover(from: error, takingBack: true)
            return .ranDry
        }
        let measured = try? pcm.delay()
        let now = monotonicNanoseconds()
        let clock = measured.map { PlaybackClock(delayFrames: $0, nanoseconds: now) }
        if let clock { configuration.clockObserver?(clock) }
        configuration.referenceTap?.playbackWrote(
            UnsafeBufferPointer(replacement), channels: parameters.channels, run: device.run, clock: clock)
        return .replaced(delay: measured)
    }

    /// Wake when no more than `wake` frames are queued; write until `fill` are.
    private func fillMarks(_ parameters: PCMParameters) -> (wake: Int, fill: Int) {
        let period = parameters.periodFrames
        let bufferPeriods = max(1, parameters.bufferFrames / period)
        if isRelaxed, let relaxed = configuration.relaxedFillPeriods {
            let fill = min(max(1, relaxed.upperBound), bufferPeriods)
            return (min(relaxed.lowerBound, fill - 1) * period, fill * period)
        }
        let fill = min(max(1, configuration.fillPeriods ?? bufferPeriods), bufferPeriods)
        return ((fill - 1) * period, fill * period)
    }

    /// Renders one period and writes it (once more after a recovered xrun), then feeds the reference
    /// tap and the status. Returns the device delay after the write, or nil when nothing was written.
    private func writePeriod(_ pcm: PCM, buffers: PeriodBuffers, frameIndex: Int, device: ReopeningDevice) -> Int? {
        let parameters = pcm.parameters
        let buffer = buffers.interleaved
        buffer.update(repeating: 0)
        renderer(PlaybackPeriod(buffer: buffer, parameters: parameters, firstFrameIndex: frameIndex))
        do {
            try pcm.write(UnsafeBufferPointer(buffer))
        } catch {
            guard device.recover(from: error) else {
                configuration.takeBack?.renderedPeriodLost()
                return nil
            }
            do { try pcm.write(UnsafeBufferPointer(buffer)) } catch {
                _ = device.recover(from: error)
                configuration.takeBack?.renderedPeriodLost()
                return nil
            }
        }
        let measured = try? pcm.delay()
        let now = monotonicNanoseconds()
        let delay = measured ?? 0
        // Before the start threshold is reached the queued frames are not being played: when they
        // will be heard is not known yet.
        let clock = measured != nil && pcm.state == .running ? PlaybackClock(delayFrames: delay, nanoseconds: now) : nil
        if let clock { configuration.clockObserver?(clock) }
        configuration.referenceTap?.playbackWrote(
            UnsafeBufferPointer(buffer), channels: parameters.channels, run: device.run, clock: clock)
        let status = self.status
        status.framesCounter.add(parameters.periodFrames, ordering: .relaxed)
        status.delayFramesValue.store(delay, ordering: .relaxed)
        status.heartbeat.store(now, ordering: .relaxed)
        return delay
    }
}
