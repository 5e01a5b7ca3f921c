import Realtime

/// Everything the runner's loop reacts to, in one stream: public inputs (already stamped with their
/// time), I/O outcomes tagged with the connection generation or task token they belong to (stale ones are
/// ignored), and the periodic tick.
enum RunnerInput: Sendable {
    case engine(ConversationEvent)
    case linkOpened(generation: Int, link: any RealtimeLink)
    case connectFailed(generation: Int, error: RealtimeDisconnect)
    case link(generation: Int, event: RealtimeLinkEvent)
    /// The link's `run` returned: how the session ended.
    case linkEnded(generation: Int, end: RealtimeDisconnect)
    case retryConnect(generation: Int)
    case toolFinished(callID: String, token: Int, output: ToolOutput)
    case timerFired(TimerID, token: Int)
    case tick
    case mediaVolume(Float)
    case announcementPlaying(Bool)
    case voiceVolume(Float)
    /// `ctl say`: `reply` is resumed once, when the engine reports the outcome (or the runner stops).
    case say(text: String, id: Int, reply: CheckedContinuation<SayOutcome, Never>)
    /// The `say` caller went away (its reply is answered at once; the announcement still plays).
    case sayAbandoned(id: Int)
    case shutdown
}

extension ConversationEvent {
    /// Why a state changed, for the `state: a -> b (cause)` log line.
    var cause: String {
        switch self {
        case .button(.tap): "tap"
        case .button(.holdStarted): "press"
        case .button(.holdEnded): "release"
        case .button(.longHold): "long hold"
        case .button(.doubleTap): "double tap"
        case .muteMicrophone(let muted): muted ? "microphone muted" : "microphone on"
        case .timersRang: "timer went off"
        case .stopRinging: "timer stop"
        case .ask: "ask"
        case .resetJarvis: "reset"
        case .realtimeConnected: "realtime connected"
        case .realtimeDisconnected: "realtime closed"
        case .realtimeFailed(_, let fatal): fatal ? "realtime failed, not retrying" : "realtime failed"
        case .server(let event): event.type
        case .toolFinished(let callID, let output): "tool \(callID) \(output.succeeded ? "answered" : "failed")"
        case .timerFired(let id): id.rawValue
        case .voicePlayed: "playback progress"
        case .mediaChanged(let playing): playing ? "media playing" : "media stopped"
        case .announce: "announcement"
        case .say: "say"
        case .userSpeechDetected: "speech heard"
        case .nearEndSpeech(let active): active ? "near-end speech" : "near-end speech ended"
        case .possibleNearEndSpeech(let active): active ? "possible near-end speech" : "possible near-end speech ended"
        }
    }
}
