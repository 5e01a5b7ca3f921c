/// How a hands-free conversation decides that the user is talking over the assistant. The server never
/// interrupts by itself (`interrupt_response: false`): a real loudspeaker's residual echo would make its VAD
/// fire. With a local detector, near-end speech or possible near-end speech pauses the voice at once;
/// `minimumSpeech` of near-end speech stops it (cancel, truncate at what was heard); shorter sounds let it go
/// on after `resumeAfter`. A server turn while the assistant is audible counts only when the detector heard
/// someone. A tap always interrupts. The whole path and the measurements behind each timing: docs/barge-in.md.
public struct BargeInRule: Sendable, Equatable {
    /// A near-end speech detector feeds `ConversationEvent.nearEndSpeech` (the service; tests may run without).
    public var localDetector: Bool
    /// Near-end speech must last this long before it pauses (on top of the detector's debounce). Default 0: at once.
    public var confirmation: Duration
    /// After the assistant's audio stopped, its echo (room decay, server VAD latency) may still start a
    /// server turn for this long. Default 800 ms.
    public var echoGuard: Duration
    /// A server `speech_started` is confirmed by near-end speech seen up to this long before it. Default 300 ms.
    public var lookback: Duration
    /// After a local barge-in, the server's VAD should report the user's turn within this; otherwise the
    /// engine stops waiting and listens. Default 2 s.
    public var serverTurnWait: Duration
    /// Near-end speech heard in all while paused that stops the assistant for good. Default 400 ms: a cough
    /// pauses and lets the answer go on, a talker's first word or two stop it.
    public var minimumSpeech: Duration
    /// A paused voice plays on this long after near-end speech that fell short of `minimumSpeech` ended.
    /// Default 500 ms: a talker's pause between two words does not let the answer go on.
    public var resumeAfter: Duration
    /// Possible near-end speech alone holds a pause at most this long, so a half-heard noise never holds the
    /// answer. Default 1.5 s.
    public var possibleSpeechLimit: Duration

    public init(
        localDetector: Bool = false, confirmation: Duration = .zero, echoGuard: Duration = .milliseconds(800),
        lookback: Duration = .milliseconds(300), serverTurnWait: Duration = .seconds(2),
        minimumSpeech: Duration = .milliseconds(400), resumeAfter: Duration = .milliseconds(500),
        possibleSpeechLimit: Duration = .milliseconds(1500)
    ) {
        self.localDetector = localDetector
        self.confirmation = confirmation
        self.echoGuard = echoGuard
        self.lookback = lookback
        self.serverTurnWait = serverTurnWait
        self.minimumSpeech = minimumSpeech
        self.resumeAfter = resumeAfter
        self.possibleSpeechLimit = possibleSpeechLimit
    }
}
