import Realtime

/// Engine timing and session settings. Every non-idle state has a timer that brings the engine back.
public struct ConversationConfiguration: Sendable {
    /// Session settings for `session.update` (voice, VAD, transcription, router instructions).
    public var session: RealtimeSessionSettings
    /// Tools registered in `session.update` (from `ToolRegistry.functionTools`).
    public var tools: [FunctionTool]
    /// The Realtime model: its prices for the per-turn cost, and whether it speaks its own preambles (then
    /// the prompt asks for no filler of its own).
    public var model: RealtimeModel
    /// `connecting` → error when no `session.created` arrives. Default 10 s.
    public var connectTimeout: Duration
    /// `listening` with nothing said ends the conversation (closes the socket: billing). Default 10 s.
    public var quietPeriod: Duration
    /// `user_speaking` bound (VAD never stops, a stuck button). Default 60 s.
    public var userSpeakingLimit: Duration
    /// `processing` → listening when no response comes. Default 15 s.
    public var processingTimeout: Duration
    /// Speaking states with no audio or playback progress. Default 8 s.
    public var speakingWatchdog: Duration
    /// Backstop for a running tool (the Jarvis client has its own, shorter, timeouts). Default 90 s.
    public var toolTimeout: Duration
    /// How long `error` is shown before `idle`. Default 2 s.
    public var errorHold: Duration
    /// Push-to-talk audio shorter than this is dropped silently (the API rejects < 100 ms). Default 100 ms.
    public var minimumCommit: Duration
    /// Spoken to the model when a tool times out.
    public var toolTimeoutMessage: String
    /// Sent as the output of a tool call the user cancelled with a tap.
    public var toolCancelledMessage: String
    /// An announcement (`ConversationEvent.announce`) still waiting after this long is dropped. Default 60 s.
    public var announcementMaxAge: Duration
    /// The owner's announcement (`say`) still waiting behind a conversation after this long fails. Default 5 min.
    public var sayMaxAge: Duration
    /// Tools that answer at once (local media controls): calling only these plays no "thinking" earcon.
    /// Default none; `use(_:)` takes them from the tools' definitions.
    public var quietTools: Set<String>
    /// A second tap within this long of the first is a double tap (`[button] double_tap_ms`; the gesture
    /// recogniser uses the same): a tap on a muted microphone waits this long before it says so. Default 400 ms.
    public var doubleTapWindow: Duration
    /// A timer rings at most this long unless stopped (`[timers] ring_cap_min`). Default 15 min.
    public var ringCap: Duration
    /// The timer sound repeats this often while ringing. Default 3 s.
    public var timerChimeInterval: Duration
    /// What rang is said again this often (every so many chimes) while ringing. Default 30 s.
    public var timerSayInterval: Duration
    /// How barge-in is decided in hands-free conversations. Default: the server's VAD is trusted (no local
    /// near-end detector); the service uses its capture chain's detector (`BargeInRule(localDetector: true)`).
    public var bargeIn: BargeInRule

    public init(
        session: RealtimeSessionSettings = RealtimeSessionSettings(), tools: [FunctionTool] = [],
        model: RealtimeModel = RealtimeModels.model(for: RealtimeModels.defaultID), connectTimeout: Duration = .seconds(10),
        quietPeriod: Duration = .seconds(10),
        userSpeakingLimit: Duration = .seconds(60), processingTimeout: Duration = .seconds(15),
        speakingWatchdog: Duration = .seconds(8), toolTimeout: Duration = .seconds(90), errorHold: Duration = .seconds(2),
        minimumCommit: Duration = .milliseconds(100),
        toolTimeoutMessage: String = "Jarvis did not answer in time. Please try again.",
        toolCancelledMessage: String = "The user cancelled this request.",
        announcementMaxAge: Duration = .seconds(60), sayMaxAge: Duration = .seconds(300), quietTools: Set<String> = [],
        doubleTapWindow: Duration = .milliseconds(400), ringCap: Duration = .seconds(15 * 60),
        timerChimeInterval: Duration = .seconds(3), timerSayInterval: Duration = .seconds(30),
        bargeIn: BargeInRule = BargeInRule()
    ) {
        self.session = session
        self.tools = tools
        self.model = model
        self.connectTimeout = connectTimeout
        self.quietPeriod = quietPeriod
        self.userSpeakingLimit = userSpeakingLimit
        self.processingTimeout = processingTimeout
        self.speakingWatchdog = speakingWatchdog
        self.toolTimeout = toolTimeout
        self.errorHold = errorHold
        self.minimumCommit = minimumCommit
        self.toolTimeoutMessage = toolTimeoutMessage
        self.toolCancelledMessage = toolCancelledMessage
        self.announcementMaxAge = announcementMaxAge
        self.sayMaxAge = sayMaxAge
        self.quietTools = quietTools
        self.doubleTapWindow = doubleTapWindow
        self.ringCap = ringCap
        self.timerChimeInterval = timerChimeInterval
        self.timerSayInterval = timerSayInterval
        self.bargeIn = bargeIn
    }

    /// The registry's tools, the system prompt built from them, and those that answer at once: what the
    /// session and the engine need to know about tools, from the one place tools describe themselves.
    public mutating func use(_ registry: ToolRegistry) {
        tools = registry.functionTools
        quietTools = registry.quietToolNames
        session.instructions = registry.instructions(modelSpeaksPreambles: model.reasons)
    }

    /// The timer a state arms on entry. `waiting_for_jarvis` relies on `toolTimeout`, armed while tools run.
    func stateTimer(for state: ConversationState) -> (TimerID, Duration)? {
        switch state {
        case .idle: nil
        case .connecting: (.connectTimeout, connectTimeout)
        case .listening: (.quietPeriod, quietPeriod)
        case .userSpeaking: (.userSpeakingLimit, userSpeakingLimit)
        case .processing: (.processingTimeout, processingTimeout)
        case .fillerSpeaking, .aiSpeaking: (.speakingWatchdog, speakingWatchdog)
        case .waitingForJarvis: nil  // toolTimeout, armed when the tools started
        case .error: (.errorHold, errorHold)
        }
    }
}
