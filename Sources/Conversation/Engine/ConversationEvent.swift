import Realtime

/// Everything that can happen to the conversation engine. I/O code turns its inputs into these.
public enum ConversationEvent: Sendable, Equatable {
    /// A button gesture from the GPIO gesture recogniser, or `ctl tap|press|release|reset`.
    case button(ButtonGesture)
    /// `ctl ask TEXT`: a typed request; the answer is spoken.
    case ask(String)
    /// `ctl reset`: what a silent long hold does (forget the Jarvis session, reset earcon, drop a hold).
    case resetJarvis
    /// The WebSocket is open (the engine waits for `session.created` before using it).
    case realtimeConnected
    /// The WebSocket closed (a close the engine did not ask for is an error mid-conversation).
    case realtimeDisconnected(RealtimeDisconnect)
    /// Connecting or the session failed; `fatal`: the runner will not retry (bad key, no credit, a retired
    /// model, the API unreachable). Its description is the journal's sentence, its reason picks the sound.
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
    /// A system note the model speaks (DJ interludes, media notices: `MediaCue`): in idle in a conversation
    /// of its own without the mic; otherwise once back in `listening`, dropped after `announcementMaxAge`.
    case announce(String)
    /// `ctl say TEXT`: the owner's announcement, read verbatim, like `announce` but kept for `sayMaxAge`;
    /// `announcementFinished(id:failure:)` reports once it has played or failed.
    case say(text: String, id: Int)
    /// The microphone heard speech in this capture (once per capture): a push-to-talk hold is then a request.
    case userSpeechDetected
    /// Near-end speech started or stopped: someone near the device, told apart from the speaker's echo
    /// (barge-in: `ConversationConfiguration.bargeIn`).
    case nearEndSpeech(Bool)
    /// Timers or alarms went off (`KitchenTimers.takeDue`): ring them.
    case timersRang([TimerRing])
    /// `ctl timer stop`: silence what rings.
    case stopRinging
    /// `ctl mute on|off`: the microphone privacy mute (a double tap toggles it: `ButtonGesture.doubleTap`).
    case muteMicrophone(Bool)
    /// Possible near-end speech, the sooner verdict, changed: it pauses the voice, never stops it (`BargeInRule`).
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
    /// The hold passed the long-hold threshold (≥ 3 s): forget the Jarvis session, unless speech was heard.
    case longHold
}
