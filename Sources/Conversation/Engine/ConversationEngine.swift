import AudioCore
import Realtime

/// The conversation engine: a pure value-type state machine. I/O code feeds it events with the current
/// monotonic time and executes the returned effects in order. No sockets, no sound, no clocks inside.
///
/// Timer contract: `startTimer(id, deadline)` replaces any timer with the same id; the executor feeds
/// `timerFired(id)` at or after the deadline. Stale or cancelled timers firing are ignored.
public struct ConversationEngine: Sendable {
    public let configuration: ConversationConfiguration
    public internal(set) var state: ConversationState = .idle
    public internal(set) var realtimeConnected = false
    public internal(set) var turnTaking: TurnTaking = .handsFree
    public internal(set) var mediaPlaying = false
    /// Armed timers and their deadlines (what the executor should currently have scheduled).
    public internal(set) var armedTimers: [TimerID: EngineTime] = [:]
    /// Since start: times the user's speech stopped the assistant (local detector or server VAD)...
    public internal(set) var bargeIns = 0
    /// ...server VAD turns heard while the assistant spoke and dropped as its echo...
    public internal(set) var echoTurnsIgnored = 0
    /// ...and times near-end speech paused the assistant but fell short of stopping it (the voice went on).
    public internal(set) var pausesResumed = 0
    /// Timers ringing now, until a tap, `ctl timer stop` or the ring cap.
    public internal(set) var ringing: TimersRinging?
    /// The microphone privacy mute: nothing is captured for the uplink while it is on.
    public internal(set) var microphoneMuted = false
    /// Estimated USD of every response since start (`response.done` usage at the model's prices).
    public internal(set) var spentUSD: Double = 0

    var now = EngineTime.zero
    var effects: [ConversationEffect] = []
    /// `session.created` arrived and `session.update` was sent: client events may flow.
    var sessionReady = false
    var hold: PushToTalkHold?
    /// A push-to-talk release that happened while still connecting.
    var pendingRelease: PendingRelease?
    var pendingAsks: [String] = []
    var completedTurns = 0
    var response = ResponseTracker()
    var calls = ToolCallTracker()
    var voice = VoicePlayback()
    var metrics = TurnMetricsRecorder()
    /// Announcements waiting for the conversation to be back in `listening`.
    var pendingAnnouncements: [PendingAnnouncement] = []
    /// The conversation exists only to speak announcements: it ends after the spoken reply.
    var interludeOnly = false
    /// The owner's announcement (`say`) whose response is being spoken.
    var saying: SayInFlight?
    /// Barge-in (`ConversationEngine+BargeIn`): the near-end detector's verdict, the server VAD's turn in
    /// progress, a local barge-in waiting for the server's turn, and when the voice was last audible.
    var nearEnd = NearEndSpeech()
    var serverTurn: ServerTurn?
    var localBargeInPending = false
    var voiceAudibleAt: EngineTime?
    /// What the last `pauseVoiceOnNearEndSpeech` said.
    var nearEndPauseArmed = false
    /// This stretch of `listening` already waited longer because the near end talked.
    var quietPeriodExtended = false

    struct PushToTalkHold: Sendable {
        var pressedAt: EngineTime
        var heardSpeech = false
    }
    struct PendingAnnouncement: Sendable {
        var text: String
        var receivedAt: EngineTime
        /// Dropped when still waiting after this long.
        var maxAge: Duration
        /// Set for the owner's `say`: its outcome is reported with `announcementFinished`.
        var sayID: Int?
    }
    struct SayInFlight: Sendable {
        var id: Int
        var heardAudio = false
    }
    enum PendingRelease: Sendable { case commit, drop }

    public init(configuration: ConversationConfiguration) {
        self.configuration = configuration
    }

    public mutating func handle(_ event: ConversationEvent, at now: EngineTime) -> [ConversationEffect] {
        self.now = now
        effects = []
        noteVoiceAudible()
        switch event {
        case .button(let gesture): handleButton(gesture)
        case .ask(let text): handleAsk(text)
        case .resetJarvis: resetJarvisSession(force: true)
        case .realtimeConnected: handleConnected()
        case .realtimeDisconnected(let end): handleConnectionLost(end, reason: "Realtime session closed: \(end)", fatal: false)
        case .realtimeFailed(let end, let fatal):
            handleConnectionLost(end, reason: fatal ? end.description : "Realtime session failed: \(end)", fatal: fatal)
        case .server(let serverEvent): handleServer(serverEvent)
        case .toolFinished(let callID, let output): handleToolFinished(callID: callID, output: output)
        case .timerFired(let id): handleTimer(id)
        case .voicePlayed(let samples): handleVoicePlayed(samples)
        case .mediaChanged(let playing): mediaPlaying = playing
        case .announce(let text): handleAnnounce(text)
        case .say(let text, let id): handleSay(text, id: id)
        case .userSpeechDetected: handleSpeechDetected()
        case .nearEndSpeech(let active): handleNearEndSpeech(active)
        case .possibleNearEndSpeech(let active): handlePossibleNearEndSpeech(active)
        case .muteMicrophone(let muted): setMicrophoneMuted(muted)
        case .timersRang(let rings): handleTimersRang(rings)
        case .stopRinging: stopRinging(because: "ctl timer stop")
        }
        noteVoiceAudible()
        endPauseWithoutSpeech()
        armNearEndPause()
        deliverAnnouncementsIfListening()
        let produced = effects
        effects = []
        return produced
    }

    // MARK: - Effect helpers

    mutating func emit(_ effect: ConversationEffect) { effects.append(effect) }

    mutating func send(_ event: ClientEvent) { effects.append(.send(event)) }

    mutating func log(_ level: LogLevel, _ message: String) { effects.append(.log(level, message)) }

    mutating func enter(_ next: ConversationState) {
        guard next != state else { return }
        let previous = state
        if let (id, _) = configuration.stateTimer(for: previous) { cancelTimer(id) }
        state = next
        if next == .listening { quietPeriodExtended = false }
        emit(.setLED(ledPattern(for: next)))  // the runner logs the change with its cause
        if let (id, duration) = configuration.stateTimer(for: next) { arm(id, after: duration) }
        if next == .waitingForJarvis, armedTimers[.toolTimeout] == nil { arm(.toolTimeout, after: configuration.toolTimeout) }
    }

    mutating func arm(_ id: TimerID, after duration: Duration) {
        let deadline = now + duration
        armedTimers[id] = deadline
        emit(.startTimer(id, deadline: deadline))
    }

    mutating func cancelTimer(_ id: TimerID) {
        if armedTimers.removeValue(forKey: id) != nil { emit(.cancelTimer(id)) }
    }

    /// `keepingRinging`: a conversation ends while timers ring; their chime, saying and cap go on.
    mutating func cancelAllTimers(keepingRinging: Bool = false) {
        for id in TimerID.allCases where !(keepingRinging && (id == .timerChime || id == .timerSay || id == .ringCap)) { cancelTimer(id) }
    }

    /// Re-arms the speaking watchdog on progress (audio arriving or being played).
    mutating func feedSpeakingWatchdog() {
        if state.isSpeaking { arm(.speakingWatchdog, after: configuration.speakingWatchdog) }
    }

    // MARK: - Conversation lifecycle

    /// `silent`: no earcon (an announcement opens the conversation, not the user).
    mutating func startConversation(_ mode: TurnTaking, audioSince: EngineTime?, silent: Bool = false) {
        resetConversation()
        turnTaking = mode
        log(.info, "conversation started (\(mode.plainName))")
        emit(.duckMedia)
        if !silent { emit(.playEarcon(mode == .text ? .thinking : .listening)) }
        emit(.connectRealtime)
        if let audioSince { emit(.uplink(.capture(since: audioSince))) }
        enter(.connecting)
    }

    /// Ends the conversation: closes the Realtime session (billing), unducks, back to idle.
    mutating func endConversation(earcon: Earcon?, reason: String) {
        log(.info, "conversation ended: \(reason)")
        // The owner's announcements still waiting get a session of their own once this one is closed.
        let waitingSays = pendingAnnouncements.filter { $0.sayID != nil }
        pendingAnnouncements.removeAll { $0.sayID != nil }
        tearDown(reason: "the conversation ended (\(reason))")
        if let earcon { emit(.playEarcon(earcon)) }
        enter(.idle)
        if let first = waitingSays.first {
            startConversation(.text, audioSince: nil, silent: true)
            pendingAnnouncements = waitingSays
            interludeOnly = true
            log(.info, "\(Self.sayName(first.sayID ?? Self.deviceNoticeID)): opening a session to speak it")
        }
    }

    /// Something went wrong that ends the conversation: say so, show it, then return to idle.
    mutating func fail(earcon: Earcon, reason: String) {
        log(.error, reason)
        tearDown(reason: reason)
        emit(.playEarcon(earcon))
        enter(.error)
    }

    private mutating func tearDown(reason: String) {
        if !pendingAnnouncements.isEmpty {
            log(.info, "conversation ended: \(pendingAnnouncements.count) announcement(s) not spoken")
        }
        failSay(reason)
        failSays(in: pendingAnnouncements, reason)
        for callID in calls.running.keys.sorted() { emit(.cancelTool(callID: callID)) }
        if voice.needsFlush { emit(.flushVoice) }
        emit(.uplink(.stop))
        finishTurn()
        emit(.disconnectRealtime)
        if ringing == nil { emit(.unduckMedia) }  // ringing keeps media down
        cancelAllTimers(keepingRinging: ringing != nil)
        resetConversation()
        realtimeConnected = false
    }

    private mutating func resetConversation() {
        sessionReady = false
        hold = nil
        pendingRelease = nil
        pendingAsks = []
        completedTurns = 0
        response = ResponseTracker()
        calls = ToolCallTracker()
        voice = VoicePlayback()
        metrics = TurnMetricsRecorder()
        pendingAnnouncements = []
        interludeOnly = false
        saying = nil
        serverTurn = nil
        localBargeInPending = false
        voiceAudibleAt = nil
    }

    /// Closes the per-turn metrics, if a turn was open; `cutByBargeIn` when the user talked over the answer.
    mutating func finishTurn(cutByBargeIn: Bool = false) {
        guard var turn = metrics.finish() else { return }
        turn.cutByBargeIn = cutByBargeIn
        completedTurns += 1
        emit(.turnCompleted(turn))
        log(.info, turn.description)
    }

    /// The user's turn is complete (commit, typed request): from here on the assistant owes an answer.
    mutating func userTurnEnded() {
        metrics.userTurnEnded(at: now)
    }

    /// Asks for a response, or defers it until the active one is done (never two at once).
    mutating func requestResponse(isAnswer: Bool) {
        if response.request(isAnswer: isAnswer) { send(.responseCreate(nil)) }
    }

    /// Where to go once the assistant stopped speaking: wait for tools, for a requested response, or listen.
    mutating func afterSpeech() {
        if !calls.running.isEmpty {
            enter(.waitingForJarvis)
        } else if response.isActive {
            enter(.processing)
        } else if interludeOnly {
            finishSay()
            finishTurn()
            deliverAnnouncementsOrEndInterlude()  // one that came in meanwhile, else the interlude is over
        } else {
            finishSay()
            finishTurn()
            enter(.listening)
        }
    }
}
