import Jarvis
import Logging
import ServiceLifecycle
import Synchronization

/// The I/O side of the conversation: owns one `ConversationEngine` and one serial loop that feeds it
/// events with a monotonic time and executes its effects in order (README, "Conversation").
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
    let idleTicks = Atomic(false)
    private let started = Atomic(false)

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
    /// `announce(cue.text)`.
    public func announce(_ cue: MediaCue) { announce(cue.text) }
    /// The user's media volume 0...1; ducking keeps working relative to it.
    public func setMediaVolume(_ volume: Float) { continuation.yield(.mediaVolume(volume)) }
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
        let loop = RunnerLoop(runner: self)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in await tickLoop() }
            await withGracefulShutdownHandler {
                await withTaskCancellationHandler {
                    await loop.run(inputs)
                } onCancel: { [continuation] in
                    continuation.yield(.shutdown)
                }
            } onGracefulShutdown: { [continuation] in
                continuation.yield(.shutdown)
            }
            group.cancelAll()
        }
    }

    private func tickLoop() async {
        while !Task.isCancelled {
            do {
                let idle = idleTicks.load(ordering: .relaxed)
                try await clock.sleep(for: idle ? configuration.idleTickInterval : configuration.tickInterval)
            } catch {
                return
            }
            if !tickQueued.exchange(true, ordering: .acquiringAndReleasing) {
                continuation.yield(.tick)
            }
        }
    }
}
