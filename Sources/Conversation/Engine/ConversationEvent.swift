import Realtime

/// Everything that can happen to the conversation engine. I/O code turns its inputs into these.
public enum ConversationEvent: Sendable, Equatable {
    /// A button gesture from the GPIO gesture recogniser, or `ctl tap|press|release|reset`.
    case button(ButtonGesture)
    /// `ctl ask TEXT`: a typed request; the answer is spoken.
    case ask(String)
    /// `ctl reset`: what a silent long hold does, unconditionally (forget the Jarvis session, reset earcon,
    /// discard a push-to-talk hold in progress).
    case resetJarvis
    /// The WebSocket is open (the engine waits for `session.created` before using it).
    case realtimeConnected
    /// The WebSocket closed (a close the engine did not ask for is an error mid-conversation).
    case realtimeDisconnected(RealtimeDisconnect)
    /// Connecting or the session failed. `fatal`: the runner will not retry (bad key, no credit, a model the
    /// API does not serve, beta shape, the API unreachable); its description is one plain sentence for the
    /// journal, its reason picks the sound.
    case realtimeFailed(RealtimeDisconnect, fatal: Bool)
    /// A decoded Realtime server event.
    case server(ServerEvent)
    /// A tool call finished (Jarvis answered, or failed with a spoken message).
    case toolFinished(callID: String, output: ToolOutput)
    /// A timer the engine started has reached its deadline.
    case timerFired(TimerID)
    /// Voice samples (24 kHz) actually played since the last `flushVoice`, i.e. written minus device delay.
    case voicePlayed(samples: Int)
    /// The media player started or stopped playing.
    case mediaChanged(playing: Bool)
    /// Tell the Realtime session this (a system text item) and have the model speak (DJ interludes, media
    /// notices; see `MediaCue`). In idle it opens a conversation just for it: no mic, no listening earcon,
    /// and it ends after the spoken reply. In `listening` it goes out at once; otherwise it waits until the
    /// conversation is back in `listening` and is dropped when older than `announcementMaxAge`.
    case announce(String)
    /// `ctl say TEXT`: the owner's announcement, read verbatim (response-level instructions, no tools), like
    /// `announce` otherwise but kept for `sayMaxAge`; when a conversation ends before its turn it gets a
    /// session of its own. `announcementFinished(id:failure:)` reports once it has been played or failed.
    case say(text: String, id: Int)
    /// The microphone heard speech in the current capture (sent once per capture by the runner). During a
    /// push-to-talk hold it makes the hold a request, so the long-hold reset does not apply.
    case userSpeechDetected
    /// The capture side's near-end speech detector changed its verdict: someone near the device started
    /// (`true`) or stopped (`false`) talking, told apart from the speaker's echo. Barge-in in hands-free
    /// conversations follows `ConversationConfiguration.bargeIn`.
    case nearEndSpeech(Bool)
    /// Timers or alarms went off (`KitchenTimers.takeDue`): ring them.
    case timersRang([TimerRing])
    /// `ctl timer stop`: silence what rings.
    case stopRinging
    /// `ctl mute on|off`: the microphone privacy mute (a double tap toggles it: `ButtonGesture.doubleTap`).
    case muteMicrophone(Bool)
    /// The detector's sooner, looser verdict changed: someone may be starting to talk (on whenever
    /// `nearEndSpeech` is). It pauses the assistant's voice, never stops it (`BargeInRule`).
    case possibleNearEndSpeech(Bool)
}

public enum ButtonGesture: Sendable, Equatable {
    /// A short press, reported at release. `pressedAt`: when the button went down (pre-roll start).
    case tap(pressedAt: EngineTime)
    /// The press became a hold (≥ 400 ms by default): push-to-talk starts, with audio from `pressedAt`.
    case holdStarted(pressedAt: EngineTime)
    /// The hold was released.
    case holdEnded
    /// A second tap soon after a first (which was already handled as a tap): toggles the microphone mute.
    case doubleTap
    /// The hold passed the long-hold threshold (≥ 3 s): forget the Jarvis session, unless the hold is a
    /// push-to-talk request in which speech was heard (`userSpeechDetected`); then it is ignored.
    case longHold
}
