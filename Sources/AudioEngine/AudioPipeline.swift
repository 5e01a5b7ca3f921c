import ALSA
import AudioCore
import Basics
import EchoControl
import Logging
import ServiceLifecycle
import SpeexDSP
import Synchronization

/// The appliance's audio: `rt:playback` renders the mixer into the speaker and feeds the echo
/// reference; `rt:capture` reads the mic, runs the capture chain (echo cancellation, preprocessing,
/// 24 kHz conversion) and fills `uplink`. As a `Service` it starts both loops, writes their events and
/// the chain's statistics to the log off the realtime threads, and stops them on shutdown.
public final class AudioPipeline: Service, Sendable {
    public let configuration: AudioPipelineConfiguration
    /// Voice, media and earcon inputs, at `configuration.playbackFormat`.
    public let mixer: Mixer
    /// Processed mic audio at 24 kHz mono, for the Realtime uplink (one consumer).
    public let uplink: SPSCRing<Int16>
    public let captureLoop: CaptureLoop
    public let playbackLoop: PlaybackLoop
    public var captureStatistics: CaptureStatistics { processor.stats }
    /// Pauses the voice on the playback thread at the near-end detector's verdict while the conversation
    /// arms it (`isArmed`).
    public let nearEndPauseReflex: NearEndPauseReflex
    /// A conversation captures the uplink (the chain must run); false lets the capture thread skip the
    /// chain while the reference is silent (the idle pre-roll is then the resampled mic), and only keep
    /// the echo canceller ready while it plays (`CaptureChain.track`; the uplink then carries silence).
    /// Any thread.
    public var uplinkActive: Bool {
        get { processor.uplinkActive.load(ordering: .relaxed) }
        set {
            processor.uplinkActive.store(newValue, ordering: .relaxed)
            captureLoop.isRelaxed = !newValue && !conversationActive
        }
    }
    /// A conversation runs (the engine is not idle): both loops take the short path (10 ms wakeups,
    /// `bufferPeriods` queued for playback). False lets them batch periods (fewer wakeups); the deeper
    /// playback queue then plays out before the first voice arrives (connecting takes longer). Any thread.
    public var conversationActive: Bool {
        get { conversation.load(ordering: .relaxed) }
        set {
            conversation.store(newValue, ordering: .relaxed)
            processor.conversationActive.store(newValue, ordering: .relaxed)
            playbackLoop.isRelaxed = !newValue
            captureLoop.isRelaxed = !newValue && !uplinkActive
        }
    }
    private let conversation = Atomic<Bool>(false)

    /// The talk button went down: a hold may follow, whose pre-roll starts now, so while no conversation
    /// runs the capture chain runs in full for `pressWakeMilliseconds` (over radio it otherwise only keeps
    /// the canceller ready). Any thread; does not block.
    public func talkButtonPressed() {
        processor.talkButtonPresses.add(1, ordering: .relaxed)
    }
    private let processor: CaptureChainDriver
    private let logger: Logger
    private let serviceTick = Atomic<Int64>(0)
    /// The reference gain the log last told of (`CaptureStatistics.referenceGain`).
    private let loggedReferenceGain = Atomic<Int>(1)

    /// CLOCK_MONOTONIC ns of the last tick of the service loop (`run()`, every 250 ms or 1 s; 0 before it
    /// starts): the supervisor's proof that this loop is alive, device or not.
    public var lastServiceTickNanoseconds: Int64 { serviceTick.load(ordering: .relaxed) }

    public init(configuration: AudioPipelineConfiguration, logger: Logger) throws(AudioPipelineError) {
        self.configuration = configuration
        self.logger = logger
        let chain: CaptureChain
        do { chain = try CaptureChain(configuration: configuration.chain) } catch { throw .chain(error) }
        mixer = Mixer(configuration: Mixer.Configuration(format: configuration.playbackFormat))
        uplink = SPSCRing(capacity: CaptureChainConfiguration.uplinkSampleRate * configuration.uplinkMilliseconds / 1000, zero: 0)
        let periodMicroseconds = configuration.periodMilliseconds * 1000
        let maxCapturePeriod = configuration.captureRate * configuration.periodMilliseconds / 1000 * 4
        do {
            processor = try CaptureChainDriver(
                chain: chain, uplink: uplink, captureRate: configuration.captureRate, maxPeriodFrames: maxCapturePeriod,
                pressWakeMilliseconds: configuration.pressWakeMilliseconds)
        } catch { throw .resampler(error) }

        let tap: ReferenceTap?
        if configuration.referenceChannel == nil {
            do {
                tap = try ReferenceTap(
                    sampleRate: configuration.captureRate, playbackRate: configuration.playbackFormat.sampleRate,
                    maxPlaybackPeriodFrames: configuration.playbackFormat.sampleRate * configuration.periodMilliseconds / 1000 * 4)
            } catch { throw .resampler(error) }
        } else {
            tap = nil
        }
        let processor = processor
        captureLoop = CaptureLoop(
            configuration: CaptureLoopConfiguration(
                device: configuration.captureDevice,
                pcm: PCMConfiguration(
                    sampleRate: configuration.captureRate, channels: configuration.captureChannels,
                    periodMicroseconds: periodMicroseconds, periods: configuration.captureDevicePeriods),
                micChannel: configuration.micChannel, referenceChannel: configuration.referenceChannel,
                referenceTap: tap, fifoPriority: configuration.fifoPriority, backoff: configuration.backoff,
                relaxedBatchPeriods: configuration.relaxedCapturePeriods),
            processor: { period in
                processor.process(
                    mic: period.mic, reference: period.reference, streamRun: period.streamRun,
                    referenceEpoch: period.referenceEpoch)
            })
        let mixer = mixer
        let reflex = NearEndPauseReflex(mixer: mixer, statistics: processor.stats)
        nearEndPauseReflex = reflex
        playbackLoop = PlaybackLoop(
            configuration: PlaybackLoopConfiguration(
                device: configuration.playbackDevice,
                pcm: PCMConfiguration(
                    sampleRate: configuration.playbackFormat.sampleRate, channels: configuration.playbackFormat.channels,
                    periodMicroseconds: periodMicroseconds, periods: configuration.playbackDevicePeriods,
                    startThresholdFrames: configuration.playbackFormat.sampleRate * configuration.periodMilliseconds / 1000
                        * configuration.bufferPeriods),
                referenceTap: tap, fifoPriority: configuration.fifoPriority, backoff: configuration.backoff,
                fillPeriods: configuration.bufferPeriods, relaxedFillPeriods: configuration.relaxedPlaybackPeriods,
                takeBack: reflex,
                clockObserver: { clock in mixer.stampPlayback(delayFrames: clock.delayFrames, nanoseconds: clock.nanoseconds) }),
            renderer: { period in mixer.render(into: period.buffer) })
        playbackLoop.isRelaxed = true
        captureLoop.isRelaxed = true
    }

    /// Starts both realtime threads. Returns scheduling notices worth a log line.
    public func start() throws(AudioPipelineError) -> [String] {
        var notices: [String] = []
        do {
            if let notice = try playbackLoop.start() { notices.append("rt:playback: \(notice)") }
            if let notice = try captureLoop.start() { notices.append("rt:capture: \(notice)") }
        } catch {
            playbackLoop.stop()
            throw .thread(error)
        }
        return notices
    }

    /// Stops and joins both threads (closing the devices).
    public func stop() {
        captureLoop.stop()
        playbackLoop.stop()
    }

    /// True while both loops have completed a period within `nanoseconds` of `now`: the watchdog's
    /// test that audio is really flowing.
    public func isAlive(now: Int64 = monotonicNanoseconds(), within nanoseconds: Int64) -> Bool {
        now - captureLoop.status.lastPeriodNanoseconds < nanoseconds
            && now - playbackLoop.status.lastPeriodNanoseconds < nanoseconds
    }

    /// Writes pending loop events, and a change of the chain's reference gain, to the log. Call from one
    /// non-realtime task.
    public func drainEvents() {
        while let event = captureLoop.nextEvent() {
            log(event, device: configuration.captureDevice, stream: .capture)
        }
        while let event = playbackLoop.nextEvent() {
            log(event, device: configuration.playbackDevice, stream: .playback)
        }
        let gain = captureStatistics.referenceGain
        if loggedReferenceGain.exchange(gain, ordering: .relaxed) != gain {
            logger.notice(
                gain == 1
                    ? "the echo canceller's reference is no longer raised (raised, it would clip)"
                    : "the mic hears the speaker louder than the echo reference carries it; the reference is raised \(gain)x ([dsp] match_reference_level)"
            )
        }
    }

    private func log(_ event: AudioLoopEvent, device: PCMDevice, stream: PCMStream) {
        let message = event.message(device: device, stream: stream)
        switch event.kind {
        case .opened: logger.notice("\(message)")
        case .xrun, .takeBackUnderrun: logger.warning("\(message)")
        default: logger.error("\(message)")
        }
        if let detail = event.libraryDetail(device: device, stream: stream) { logger.debug("\(detail)") }
    }

    /// The service: start, report events every 250 ms in a conversation and every second outside one
    /// (fewer wakeups while idle), the chain's state every minute at debug; stop on graceful shutdown.
    public func run() async throws {
        for notice in try start() { logger.notice("\(notice)") }
        defer { stop() }
        var lastStatistics = monotonicNanoseconds()
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let now = monotonicNanoseconds()
            serviceTick.store(now, ordering: .relaxed)
            drainEvents()
            if now - lastStatistics >= Self.statisticsIntervalNanoseconds {
                lastStatistics = now
                logStatistics()
            }
            try? await Task.sleep(for: conversationActive ? .milliseconds(250) : .seconds(1))
        }
        drainEvents()
    }

    private static let statisticsIntervalNanoseconds = Duration.seconds(60).nanoseconds

    public func logStatistics() {
        let s = captureStatistics
        logger.debug(
            "echo reduction \(s.echoReductionDB) dB, reference lag \(s.lagMilliseconds) ms, drift \(s.driftPPM) ppm, reference gain \(s.referenceGain)x, xruns capture \(captureLoop.status.xruns) playback \(playbackLoop.status.xruns)"
        )
    }
}

public enum AudioPipelineError: Error, CustomStringConvertible {
    case chain(CaptureChainError)
    case resampler(SpeexDSPError)
    case thread(RealtimeThreadError)

    public var description: String {
        switch self {
        case .chain(let e): "capture chain: \(e)"
        case .resampler(let e): "resampler: \(e)"
        case .thread(let e): "audio thread: \(e)"
        }
    }
}
