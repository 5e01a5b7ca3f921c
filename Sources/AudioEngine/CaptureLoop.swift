import ALSA
import AudioCore
import Basics

/// How the capture loop opens and reads its device. Defaults suit a 16 kHz mono mic.
public struct CaptureLoopConfiguration: Sendable {
    public var device: PCMDevice
    /// Rate, channel count (e.g. 6 for a ReSpeaker USB v2.0), period (default 10 ms), periods.
    public var pcm: PCMConfiguration
    /// The channel handed to the processor as `mic`. Default 0 (ReSpeaker: its processed channel).
    public var micChannel: Int
    /// A hardware loopback channel to hand over as `reference` (ReSpeaker 6-ch firmware: 5). nil: none.
    public var referenceChannel: Int?
    /// When there is no hardware reference: pull the aligned playback reference from this tap.
    public var referenceTap: ReferenceTap?
    public var threadName: String
    /// SCHED_FIFO priority to ask for; nil: normal scheduling. Default 70.
    public var fifoPriority: Int32?
    public var backoff: Backoff
    /// Slots in the event ring to the non-realtime reader. Default 256.
    public var eventCapacity: Int

    public init(
        device: PCMDevice,
        pcm: PCMConfiguration = PCMConfiguration(sampleRate: 16_000, channels: 1),
        micChannel: Int = 0, referenceChannel: Int? = nil, referenceTap: ReferenceTap? = nil,
        threadName: String = "rt:capture", fifoPriority: Int32? = 70, backoff: Backoff = .deviceReopen,
        eventCapacity: Int = 256
    ) {
        self.device = device
        self.pcm = pcm
        self.micChannel = micChannel
        self.referenceChannel = referenceChannel
        self.referenceTap = referenceTap
        self.threadName = threadName
        self.fifoPriority = fifoPriority
        self.backoff = backoff
        self.eventCapacity = eventCapacity
    }
}

/// One captured period as the processor sees it. The buffers are only valid during the call.
public struct CapturedPeriod {
    /// The mic channel, deinterleaved (periodFrames samples).
    public let mic: UnsafeBufferPointer<Int16>
    /// The echo reference for the same instants: the hardware channel or the tap's aligned playback
    /// reference; nil when neither is configured.
    public let reference: UnsafeBufferPointer<Int16>?
    /// All channels as read.
    public let interleaved: UnsafeBufferPointer<Int16>
    public let parameters: PCMParameters
    /// CLOCK_MONOTONIC time at which the first frame was captured (read time minus device delay).
    public let firstFrameNanoseconds: Int64
    /// Frames captured before this period since the loop started (over reopens).
    public let firstFrameIndex: Int
}

/// Runs on `rt:capture`, once per period. It must not allocate, lock, log or await.
public typealias CaptureProcessor = @Sendable (CapturedPeriod) -> Void

/// The capture device loop: opens the device on its own realtime thread, reads period by period,
/// hands each period to the processor, recovers xruns, reopens a vanished device with capped
/// exponential backoff, and reports through `status` (atomics) and `nextEvent()` (SPSC ring).
public final class CaptureLoop: Sendable {
    public let configuration: CaptureLoopConfiguration
    private let processor: CaptureProcessor
    private let core: PeriodLoopCore

    public init(configuration: CaptureLoopConfiguration, processor: @escaping CaptureProcessor) {
        self.configuration = configuration
        self.processor = processor
        core = PeriodLoopCore(eventCapacity: configuration.eventCapacity)
    }

    public var status: AudioLoopStatus { core.status }

    /// Starts the thread; returns a scheduling notice to log when SCHED_FIFO was refused.
    @discardableResult
    public func start() throws(RealtimeThreadError) -> String? {
        try core.start(name: configuration.threadName, fifoPriority: configuration.fifoPriority) { [self] in run() }
    }

    /// Asks the loop to stop (within about a period) and joins the thread. Closes the device.
    public func stop() { core.stop() }

    /// The next event for the log; call from one non-realtime thread only.
    public func nextEvent() -> AudioLoopEvent? { core.nextEvent() }

    private func run() {
        let config = configuration
        let status = core.status
        let buffers = PeriodBuffers()
        var pcm: PCM?
        var backoff = config.backoff
        var opens = 0
        var frameIndex = 0
        while !core.isStopping {
            guard let device = pcm else {
                do {
                    let opened = try PCM(device: config.device, stream: .capture, configuration: config.pcm)
                    opens += 1
                    if opens > 1 { status.reopensCounter.add(1, ordering: .relaxed) }
                    buffers.ensure(opened.parameters)
                    core.emit(AudioLoopEvent(kind: .opened, code: opens > 1 ? 1 : 0, at: monotonicNanoseconds(), parameters: opened.parameters))
                    status.runningFlag.store(true, ordering: .relaxed)
                    pcm = opened
                } catch {
                    status.openFailuresCounter.add(1, ordering: .relaxed)
                    let delay = Int(backoff.nextMilliseconds())
                    core.emit(AudioLoopEvent(.openFailed, error, at: monotonicNanoseconds(), backoffMilliseconds: delay))
                    _ = core.sleep(milliseconds: delay)
                }
                continue
            }
            let parameters = device.parameters
            do {
                try device.read(into: buffers.interleaved)
            } catch {
                switch error.kind {
                case .xrun, .suspended:
                    do {
                        try device.recover(from: error)
                        status.xrunsCounter.add(1, ordering: .relaxed)
                        core.emit(AudioLoopEvent(error.kind == .xrun ? .xrun : .suspended, error, at: monotonicNanoseconds()))
                    } catch {
                        core.emit(AudioLoopEvent(.recoveryFailed, error, at: monotonicNanoseconds()))
                        pcm = nil
                    }
                default:
                    core.emit(AudioLoopEvent(.disconnected, error, at: monotonicNanoseconds()))
                    pcm = nil
                }
                if pcm == nil {
                    status.runningFlag.store(false, ordering: .relaxed)
                    _ = core.sleep(milliseconds: Int(backoff.nextMilliseconds()))
                }
                continue
            }
            backoff.reset()
            let delay = (try? device.delay()) ?? 0
            let now = monotonicNanoseconds()
            let frames = parameters.periodFrames
            let first = now - Int64((Double(delay + frames) * 1e9 / Double(parameters.sampleRate)).rounded())
            let channels = parameters.channels
            let interleaved = UnsafeBufferPointer(buffers.interleaved)
            let mic = buffers.mono
            let micChannel = min(config.micChannel, channels - 1)
            for f in 0..<frames { mic[f] = interleaved[f * channels + micChannel] }
            var reference: UnsafeBufferPointer<Int16>?
            if let channel = config.referenceChannel, channel < channels {
                for f in 0..<frames { buffers.reference[f] = interleaved[f * channels + channel] }
                reference = UnsafeBufferPointer(buffers.reference)
            } else if let tap = config.referenceTap {
                tap.pull(into: buffers.reference, firstFrameNanoseconds: first)
                reference = UnsafeBufferPointer(buffers.reference)
            }
            processor(CapturedPeriod(
                mic: UnsafeBufferPointer(mic), reference: reference, interleaved: interleaved,
                parameters: parameters, firstFrameNanoseconds: first, firstFrameIndex: frameIndex))
            frameIndex += frames
            status.framesCounter.add(frames, ordering: .relaxed)
            status.delayFramesValue.store(delay, ordering: .relaxed)
            status.heartbeat.store(now, ordering: .relaxed)
        }
        pcm = nil
        status.runningFlag.store(false, ordering: .relaxed)
    }
}
