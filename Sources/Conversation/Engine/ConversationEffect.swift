import AudioCore
import Basics
import Realtime

/// What the engine asks the I/O layer to do, in order. Effects are executed sequentially; in particular
/// `uplink(.stop)` sends everything captured so far before the next `send` goes out.
public enum ConversationEffect: Sendable, Equatable {
    case connectRealtime
    case disconnectRealtime
    case send(ClientEvent)
    case uplink(UplinkCommand)
    /// Queue a chunk of assistant audio (base64 PCM16 24 kHz) on the voice channel.
    case enqueueVoice(itemID: String, audio: String)
    /// Drop all queued voice audio now (a pause ends with it); the played-samples counter restarts at 0.
    case flushVoice
    /// Hold the queued voice audio where it is: the assistant falls silent at once, and can go on.
    case pauseVoice
    /// Play the held voice audio on from where it stopped.
    case resumeVoice
    /// Let the audio side pause the voice by itself the moment the near-end detector hears someone (true),
    /// or no longer (false): armed exactly while the engine would pause at the next verdict, so the
    /// speaker falls silent without waiting for the verdict to reach the engine (`NearEndPauseReflex`).
    case pauseVoiceOnNearEndSpeech(Bool)
    case callTool(callID: String, name: String, arguments: String)
    case cancelTool(callID: String)
    case startTimer(TimerID, deadline: EngineTime)
    case cancelTimer(TimerID)
    case duckMedia
    case unduckMedia
    case stopMedia
    case playEarcon(Earcon)
    case setLED(LEDPattern)
    case resetJarvisSession
    /// The microphone mute changed: the runner keeps it across restarts and shows it in `status`.
    case microphoneMuteChanged(Bool)
    /// The owner's announcement `id` (`say`) has been played out (`failure` nil), or will not be spoken.
    case announcementFinished(id: Int, failure: String?)
    case turnCompleted(TurnMetrics)
    /// What the user or the assistant said (logged only when transcripts are enabled: privacy).
    case transcript(Transcript)
    case log(LogLevel, String)
}

public enum UplinkCommand: Sendable, Equatable {
    /// Start (or restart) capturing, keeping audio from `since` (pre-roll) buffered locally.
    case capture(since: EngineTime)
    /// Send the buffered audio as `input_audio_buffer.append`, then keep streaming live audio.
    case stream
    /// Send what has been captured up to now, then stop.
    case stop
}

public enum TimerID: String, Sendable, Hashable, CaseIterable {
    case connectTimeout = "connect_timeout"
    case quietPeriod = "quiet_period"
    case userSpeakingLimit = "user_speaking_limit"
    case processingTimeout = "processing_timeout"
    case speakingWatchdog = "speaking_watchdog"
    case toolTimeout = "tool_timeout"
    case errorHold = "error_hold"
    /// Near-end speech must last `BargeInRule.confirmation` before it stops the assistant.
    case bargeInConfirmation = "barge_in_confirmation"
    /// After a local barge-in, how long the server's VAD has to report the user's turn.
    case serverTurnWait = "server_turn_wait"
    /// The voice was paused for near-end speech that has since stopped: it plays on when this fires.
    case voiceResume = "voice_resume"
    /// The voice was paused, and is held only by possible near-end speech: it plays on when this fires.
    case possibleSpeechLimit = "possible_speech_limit"
    /// A tap found the microphone muted: unless a second tap unmutes it first, the assistant says so.
    case mutedTap = "muted_tap"
    /// The timer sound again, while timers ring.
    case timerChime = "timer_chime"
    /// What rings is said once its chime has played: the voice never covers the chime.
    case timerSay = "timer_say"
    /// Ringing stops by itself after this (`ConversationConfiguration.ringCap`).
    case ringCap = "ring_cap"
}

public enum Transcript: Sendable, Equatable {
    case heard(String)
    case said(String)
}

public enum LogLevel: String, Sendable, Equatable { case debug, info, notice, warning, error }
