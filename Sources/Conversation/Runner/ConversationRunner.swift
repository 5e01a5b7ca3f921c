import Jarvis
import Logging
import ServiceLifecycle
import Synchronization

/// The I/O side of the conversation: owns one `ConversationEngine` and one serial loop that feeds it
/// events with a monotonic time and executes its effects in order (docs/conversation.md).
///
/// Inputs from other tasks (the button, the control socket) are posted into the loop's stream; nothing
/// but the loop touches the engine, the audio object or the Realtime link. Runs as a `Service`: on
/// graceful shutdown (or cancellation) it stops the uplink and speech, releases ducking, cancels tools
/// and timers, closes the Realtime session and returns.
public final class ConversationRunner: Service, Sendable {
    public let configuration: ConversationRunnerConfiguration
    let transport: any RealtimeTransport
    let audio: any ConversationAudio
    let tools: ToolRegistry
    let jarvis: (any JarvisAsking)?
    let hooks: ConversationHooks
    /// `duck_audio` requests from the media tools, applied by the loop while a conversation runs.
    let ducking: MediaDuckingControl?
    let clock: RunnerClock
    let logger: Logger
    let inputs: AsyncStream<RunnerInput>
    let continuation: AsyncStream<RunnerInput>.Continuation
    let snapshot = Mutex(ConversationStatus())
    /// A tick is waiting in the stream (ticks are coalesced when the loop is busy).
    let tickQueued = Atomic(false)
    /// Nothing needs fast ticks (idle, nothing playing): the tick loop slows to `idleTickInterval`.
    private let idleTicks = Atomic(false)
    /// The tick loop's sleep while idle, cut short when fast ticks are needed again.
    private let idleNap = Mutex<Task<Void, any Error>?>(nil)
    /// Ticks the loop has handled: tests wait for the loop to have polled the audio again, not for time.
    let ticksHandled = Atomic(0)
    private let started = Atomic(false)
    /// Work the loop hands to `run()`'s task group: Realtime connects and session readers are children of
    /// the runner, so they end before `run()` returns and are cancelled with it.
    let children: AsyncStream<RunnerChild>
    let childContinuation: AsyncStream<RunnerChild>.Continuation
    private let lastSayID = Atomic(0)

    /// - Parameters:
    ///   - jarvis: the Jarvis client, for `resetJarvisSession` and the session id in `status()`; the tools
    ///     call it through `tools` (`AskJarvisTool`).
    ///   - ducking: the control the `duck_audio` tool writes (`MediaTools.make(player:ducking:)`); nil without media tools.
    public init(
        configuration: ConversationRunnerConfiguration, transport: any RealtimeTransport, audio: any ConversationAudio,
        tools: ToolRegistry, jarvis: (any JarvisAsking)?, hooks: ConversationHooks = ConversationHooks(),
        ducking: MediaDuckingControl? = nil, clock: RunnerClock = .continuous, logger: Logger = Logger(label: "conversation")
    ) {
        self.configuration = configuration
        self.transport = transport
        self.audio = audio
        self.tools = tools
        self.jarvis = jarvis
        self.hooks = hooks
        self.ducking = ducking
        self.clock = clock
        self.logger = logger
        (inputs, continuation) = AsyncStream.makeStream(of: RunnerInput.self, bufferingPolicy: .unbounded)
        (children, childContinuation) = AsyncStream.makeStream(of: RunnerChild.self, bufferingPolicy: .unbounded)
        snapshot.withLock { $0.media = audio.mediaGain }
    }

    // MARK: inputs (any task)

    /// The runner's monotonic time, for stamping button presses (`ButtonGesture.tap(pressedAt:)`).
    public func now() -> EngineTime { clock.now() }

    /// `ctl tap`, or a short button press that just ended (pre-roll from now: no press time known).
    public func tap() { gesture(.tap(pressedAt: now())) }
    /// `ctl press`: push-to-talk starts now.
    public func press() { gesture(.holdStarted(pressedAt: now())) }
    /// `ctl release`: push-to-talk ends.
    public func release() { gesture(.holdEnded) }
    /// A button hold past the long-hold threshold: forget the Jarvis session.
    public func longHold() { gesture(.longHold) }
    /// `ctl reset`: forget the Jarvis session (what a silent long hold does, even during a request).
    public func reset() { continuation.yield(.engine(.resetJarvis)) }
    /// A gesture from the GPIO recogniser, with press times from `now()`.
    public func gesture(_ gesture: ButtonGesture) { continuation.yield(.engine(.button(gesture))) }
    /// `ctl ask TEXT`: a typed request whose answer is spoken.
    public func ask(_ text: String) { continuation.yield(.engine(.ask(text))) }
    /// The media player started or stopped (a tap stops media last).
    public func mediaChanged(playing: Bool) { continuation.yield(.engine(.mediaChanged(playing: playing))) }
    /// Has the model say something (a DJ interlude, a media notice): see `ConversationEvent.announce`.
    /// Never opens the microphone by itself.
    public func announce(_ text: String) { continuation.yield(.engine(.announce(text))) }
    /// `ctl say TEXT`: the owner's announcement, spoken verbatim by the Realtime voice like a DJ interlude
    /// (music ducked, no microphone, no Jarvis call), queued behind a running conversation. Returns once
    /// it has been played out, or why it will not be.
    public func say(_ text: String) async -> SayOutcome {
        let id = lastSayID.add(1, ordering: .relaxed).newValue
        let continuation = continuation
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (reply: CheckedContinuation<SayOutcome, Never>) in
                if case .terminated = continuation.yield(.say(text: text, id: id, reply: reply)) {
                    reply.resume(returning: .failed("the service is stopping"))
                }
            }
        } onCancel: {
            continuation.yield(.sayAbandoned(id: id))
        }
    }

    /// Timers or alarms went off: ring them.
    public func timersRang(_ rings: [TimerRing]) { continuation.yield(.engine(.timersRang(rings))) }
    /// `ctl timer stop`: silence what rings.
    public func stopRinging() { continuation.yield(.engine(.stopRinging)) }

    /// `ctl mute on|off`: the microphone privacy mute.
    public func muteMicrophone(_ muted: Bool) { continuation.yield(.engine(.muteMicrophone(muted))) }

    /// The assistant's voice and earcons, 0...1 (an amplitude factor: 0.5 ≈ −6 dB); media is separate.
    public func setVoiceVolume(_ level: Float) { continuation.yield(.voiceVolume(level)) }

    /// `announce(cue.text)`.
    public func announce(_ cue: MediaCue) { announce(cue.text) }
    /// The user's media volume 0...1; ducking keeps working relative to it.
    public func setMediaVolume(_ volume: Float) { continuation.yield(.mediaVolume(volume)) }
    /// The group's announcement started or stopped playing on this box: media ducks under it.
    public func setAnnouncementPlaying(_ playing: Bool) { continuation.yield(.announcementPlaying(playing)) }
    /// Stops the loop as a graceful shutdown would.
    public func shutdown() { continuation.yield(.shutdown) }

    /// The engine state as of the last event the loop handled.
    public var state: ConversationState { snapshot.withLock { $0.state } }

    /// A snapshot for the control socket (`state`, `realtime_connected`, `jarvis_session_id`, media gain).
    public func status() async -> ConversationStatus {
        var status = snapshot.withLock { $0 }
        status.jarvisSessionID = await jarvis?.currentSessionID()
        return status
    }

    // MARK: service

    public func run() async throws {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else {
            logger.error("conversation runner: run() called twice; ignored")
            return
        }
        await withDiscardingTaskGroup { group in
            group.addTask { [self] in
                await withTaskGroup(of: Void.self) { ticking in
                    ticking.addTask { [self] in await tickLoop() }
                    await withGracefulShutdownHandler {
                        await withTaskCancellationHandler {
                            await RunnerLoop(runner: self).run(inputs)
                        } onCancel: { [continuation] in
                            continuation.yield(.shutdown)
                        }
                    } onGracefulShutdown: { [continuation] in
                        continuation.yield(.shutdown)
                    }
                    ticking.cancelAll()
                }
                childContinuation.finish()
            }
            // Children still running when the loop has stopped (a session's close handshake) are awaited here.
            for await child in children {
                group.addTask { await child.work() }
            }
        }
    }

    /// Called by the loop after every input. Leaving idle wakes the tick loop at once, so a tap's earcon
    /// or a `say` does not wait out the idle interval.
    func setIdleTicks(_ idle: Bool) {
        guard idleTicks.exchange(idle, ordering: .acquiringAndReleasing) != idle, !idle else { return }
        idleNap.withLock { $0?.cancel() }
    }

    private func tickLoop() async {
        while !Task.isCancelled {
            if idleTicks.load(ordering: .acquiring) {
                await napWhileIdle()
                if Task.isCancelled { return }
            } else {
                do { try await clock.sleep(for: configuration.tickInterval) } catch { return }
            }
            if !tickQueued.exchange(true, ordering: .acquiringAndReleasing) {
                continuation.yield(.tick)
            }
        }
    }

    /// Sleeps `idleTickInterval`, or less when `setIdleTicks(false)` comes first (checked under the same
    /// lock it cancels under, so a wake between the check and the sleep is not lost).
    private func napWhileIdle() async {
        let nap = Task { [clock, configuration] in try await clock.sleep(for: configuration.idleTickInterval) }
        let woken = idleNap.withLock { current in
            current = nap
            return !idleTicks.load(ordering: .acquiring)
        }
        if woken { nap.cancel() }
        await withTaskCancellationHandler {
            _ = await nap.result
        } onCancel: {
            nap.cancel()
        }
        idleNap.withLock { $0 = nil }
    }
}

/// One piece of work the loop starts as a child of `ConversationRunner.run()`.
struct RunnerChild: Sendable {
    let work: @Sendable () async -> Void
}
