import ALSA
import AudioCore
import Basics

/// How the playback loop opens its device. Defaults: 48 kHz stereo, 10 ms periods, 4 periods.
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

    public init(
        device: PCMDevice, pcm: PCMConfiguration = PCMConfiguration(), referenceTap: ReferenceTap? = nil,
        threadName: String = "rt:playback", fifoPriority: Int32? = 70, backoff: Backoff = .deviceReopen,
        eventCapacity: Int = 256
    ) {
        self.device = device
        self.pcm = pcm
        self.referenceTap = referenceTap
        self.threadName = threadName
        self.fifoPriority = fifoPriority
        self.backoff = backoff
        self.eventCapacity = eventCapacity
    }
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

/// The playback device loop: renders and writes period by period on its own realtime thread,
/// feeds the reference tap, recovers underruns, reopens a vanished device with capped backoff.
public final class PlaybackLoop: Sendable {
    public let configuration: PlaybackLoopConfiguration
    private let renderer: PlaybackRenderer
    private let core: PeriodLoopCore

    public init(configuration: PlaybackLoopConfiguration, renderer: @escaping PlaybackRenderer) {
        self.configuration = configuration
        self.renderer = renderer
        core = PeriodLoopCore(eventCapacity: configuration.eventCapacity)
    }

    /// `frames` are frames written; `frames - delayFrames` approximates frames heard (barge-in truncation).
    public var status: AudioLoopStatus { core.status }

    @discardableResult
    public func start() throws(RealtimeThreadError) -> String? {
        try core.start(name: configuration.threadName, fifoPriority: configuration.fifoPriority) { [self] in run() }
    }

    public func stop() { core.stop() }

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
                    let opened = try PCM(device: config.device, stream: .playback, configuration: config.pcm)
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
            let buffer = buffers.interleaved
            buffer.update(repeating: 0)
            renderer(PlaybackPeriod(buffer: buffer, parameters: parameters, firstFrameIndex: frameIndex))
            var attempts = 0
            while attempts < 2 {
                attempts += 1
                do {
                    try device.write(UnsafeBufferPointer(buffer))
                    break
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
                    if pcm == nil { break }
                }
            }
            if pcm == nil {
                status.runningFlag.store(false, ordering: .relaxed)
                _ = core.sleep(milliseconds: Int(backoff.nextMilliseconds()))
                continue
            }
            backoff.reset()
            let delay = (try? device.delay()) ?? 0
            let now = monotonicNanoseconds()
            config.referenceTap?.playbackWrote(
                UnsafeBufferPointer(buffer), channels: parameters.channels, delayFrames: delay, atNanoseconds: now)
            frameIndex += parameters.periodFrames
            status.framesCounter.add(parameters.periodFrames, ordering: .relaxed)
            status.delayFramesValue.store(delay, ordering: .relaxed)
            status.heartbeat.store(now, ordering: .relaxed)
        }
        pcm = nil
        status.runningFlag.store(false, ordering: .relaxed)
    }
}
