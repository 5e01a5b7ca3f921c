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
    /// While the loop is relaxed (`isRelaxed`, no conversation): sleep until this many periods are
    /// captured, then read them all in one go. nil: never relax (one wakeup per period). The device
    /// buffer must hold well more than this.
    public var relaxedBatchPeriods: Int?

    public init(
        device: PCMDevice,
        pcm: PCMConfiguration = PCMConfiguration(sampleRate: 16_000, channels: 1),
        micChannel: Int = 0, referenceChannel: Int? = nil, referenceTap: ReferenceTap? = nil,
        threadName: String = "rt:capture", fifoPriority: Int32? = 70, backoff: Backoff = .deviceReopen,
        eventCapacity: Int = 256, relaxedBatchPeriods: Int? = nil
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
        self.relaxedBatchPeriods = relaxedBatchPeriods
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
    /// Which uninterrupted run of the capture stream this period belongs to: it changes when frames
    /// were lost before it (an overrun recovered, the device reopened).
    public let streamRun: Int
    /// The reference tap's `alignmentEpoch` after this period's pull (0 without a tap): it changes where the
    /// tap aligned the reference afresh.
    public let referenceEpoch: Int
}

/// Runs on `rt:capture`, once per period. It must not allocate, lock, log or await.
public typealias CaptureProcessor = @Sendable (CapturedPeriod) -> Void

/// The capture device loop: reads period by period on its own realtime thread and hands each period to
/// the processor; opening, xrun recovery and reopening are `ReopeningDevice`'s. Reports through `status`
/// (atomics) and `nextEvent()` (SPSC ring).
///
/// On the short path it wakes for every period (a blocking read). Relaxed (no conversation) it sleeps
/// until `relaxedBatchPeriods` are captured and processes them back to back: the same periods, with
/// the same timestamps, fewer wakeups.
public final class CaptureLoop: PeriodLoop, @unchecked Sendable {
    public let configuration: CaptureLoopConfiguration
    private let processor: CaptureProcessor

    public init(configuration: CaptureLoopConfiguration, processor: @escaping CaptureProcessor) {
        self.configuration = configuration
        self.processor = processor
        super.init(
            device: configuration.device, stream: .capture, pcm: configuration.pcm, backoff: configuration.backoff,
            threadName: configuration.threadName, fifoPriority: configuration.fifoPriority,
            eventCapacity: configuration.eventCapacity)
    }

    override func serve(_ pcm: PCM, buffers: PeriodBuffers, device: ReopeningDevice, frameIndex: inout Int) {
        let parameters = pcm.parameters
        do {
            var periods = 1
            if isRelaxed, let batch = configuration.relaxedBatchPeriods, batch > 1, pcm.state == .running {
                let available = try pcm.avail()
                let wanted = batch * parameters.periodFrames
                if available < wanted {
                    nap(frames: wanted - available, sampleRate: parameters.sampleRate)
                    return
                }
                periods = available / parameters.periodFrames
            }
            for _ in 0..<periods {
                try readPeriod(pcm, buffers: buffers, frameIndex: frameIndex, streamRun: device.run)
                frameIndex += parameters.periodFrames
            }
            device.succeeded()
        } catch {
            _ = device.recover(from: error)
        }
    }

    /// Reads one period (blocking until it is captured), times it, pulls its reference and hands it
    /// to the processor.
    private func readPeriod(_ pcm: PCM, buffers: PeriodBuffers, frameIndex: Int, streamRun: Int) throws(ALSAError) {
        let config = configuration
        let parameters = pcm.parameters
        try pcm.read(into: buffers.interleaved)
        let delay = (try? pcm.delay()) ?? 0
        let now = monotonicNanoseconds()
        let frames = parameters.periodFrames
        let first = now - Int64((Double(delay + frames) * 1e9 / Double(parameters.sampleRate)).rounded())
        let channels = parameters.channels
        let interleaved = UnsafeBufferPointer(buffers.interleaved)
        let mic = buffers.mono
        let micChannel = min(config.micChannel, channels - 1)
        for f in 0..<frames { mic[f] = interleaved[f * channels + micChannel] }
        var reference: UnsafeBufferPointer<Int16>?
        var referenceEpoch = 0
        if let channel = config.referenceChannel, channel < channels {
            for f in 0..<frames { buffers.reference[f] = interleaved[f * channels + channel] }
            reference = UnsafeBufferPointer(buffers.reference)
        } else if let tap = config.referenceTap {
            tap.pull(into: buffers.reference, firstFrameNanoseconds: first)
            reference = UnsafeBufferPointer(buffers.reference)
            referenceEpoch = tap.alignmentEpoch
        }
        processor(
            CapturedPeriod(
                mic: UnsafeBufferPointer(mic), reference: reference, interleaved: interleaved,
                parameters: parameters, firstFrameNanoseconds: first, firstFrameIndex: frameIndex, streamRun: streamRun,
                referenceEpoch: referenceEpoch))
        let status = self.status
        status.framesCounter.add(frames, ordering: .relaxed)
        status.delayFramesValue.store(delay, ordering: .relaxed)
        status.heartbeat.store(now, ordering: .relaxed)
    }
}
