/// How a hands-free conversation decides that the user is talking over the assistant.
///
/// The server's VAD hears the uplink after echo cancellation; a real loudspeaker's non-linear echo leaves
/// enough residual for it to fire while only the assistant talks. So the server never interrupts by
/// itself (`interrupt_response: false`) and barge-in is the appliance's decision:
///
/// - With a local detector (`localDetector`, the service): near-end speech reported by the capture side
///   (`ConversationEvent.nearEndSpeech`; after `confirmation`, by default at once) pauses the assistant's
///   voice on its own — a real talker is heard out within the detector's onset, without waiting for the
///   server. With the voice paused the speaker no longer drowns him, and the detector hears him clean:
///   once it has heard `minimumSpeech` of near-end speech the assistant is stopped for good (response
///   cancelled, item truncated at what was heard). A shorter sound (a cough, a clatter, a short
///   "hm", what the canceller left of a loud passage) lets the answer go on `resumeAfter` after
///   it ends, from where it paused: the assistant never cuts itself off for it. The detector's looser
///   verdict (`ConversationEvent.possibleNearEndSpeech`: the same evidence in fewer bands, only while the
///   far end sounds like speech) pauses the voice too, and holds the pause while it lasts, but never
///   counts toward `minimumSpeech`: a talker's first syllable pauses the answer sooner, and a fan
///   switched on under it costs a pause, not the answer.
///   The server's `speech_started` while the assistant is audible (or within `echoGuard` after it) is
///   held; it is the user's when the detector's `minimumSpeech` stops the assistant (or, after the voice,
///   when the detector hears near-end speech now or within `lookback` before). When its `speech_stopped`
///   comes unconfirmed the committed item is deleted (`conversation.item.delete`) and not answered: it
///   was the speaker's echo, or a sound too short to stop the assistant for.
/// - Without one (`localDetector == false`): the server's `speech_started` is trusted, as before, but the
///   engine still cancels the response itself (the server no longer does).
///
/// A tap always interrupts, whatever the detectors say.
public struct BargeInRule: Sendable, Equatable {
    /// A near-end speech detector feeds `ConversationEvent.nearEndSpeech`. Default false (tests without
    /// a capture chain); the service sets it.
    public var localDetector: Bool
    /// Near-end speech must last this long before it pauses the assistant (on top of the detector's own
    /// debounce). Default 0: at once. A verdict lasts at least the detector's 200 ms hangover, so a wait
    /// filtered nothing and only delayed the pause, by a tick and a half of the runner on average
    /// (`Benchmarks/aec-real/JOURNAL.md`; the end-to-end test cannot show it: its stand-in server VAD holds a
    /// turn on the echo when the talker starts, and a held turn would never wait).
    public var confirmation: Duration
    /// After the assistant's audio stopped, its echo (room decay, server VAD latency) may still start a
    /// server turn for this long. Default 800 ms.
    public var echoGuard: Duration
    /// A server `speech_started` is confirmed by near-end speech seen up to this long before it. Default 300 ms.
    public var lookback: Duration
    /// After a local barge-in, the server's VAD should report the user's turn within this; otherwise the
    /// engine stops waiting and listens. Default 2 s.
    public var serverTurnWait: Duration
    /// Near-end speech the detector must hear in all while the voice is paused before the assistant is
    /// stopped for good. Default 400 ms: a short sound in the room (the detector holds a verdict ~200 ms
    /// past its end) pauses the answer and lets it go on, a talker's first word or two stop it.
    public var minimumSpeech: Duration
    /// A paused voice plays on this long after near-end speech that fell short of `minimumSpeech` ended.
    /// Default 500 ms: a talker's pause between two words does not let the answer go on
    /// (`Benchmarks/aec/barge_in_sweep.py`: with 300 ms it resumed 24 times over 77 interruptions).
    public var resumeAfter: Duration
    /// The looser verdict alone (`ConversationEvent.possibleNearEndSpeech`, the verdict itself off) holds a
    /// pause at most this long; then the answer goes on even while it lasts. A sound the detector keeps
    /// half-hearing (a noise the room floor has not learnt yet) never holds the answer longer; a talker's
    /// verdict follows the pause within ~100 ms. Default 1.5 s (`Benchmarks/aec-real`: with the whole-band
    /// test nothing there holds it; without it a fan switched on under the far end held it 0.96 s).
    public var possibleSpeechLimit: Duration

    public init(localDetector: Bool = false, confirmation: Duration = .zero, echoGuard: Duration = .milliseconds(800),
                lookback: Duration = .milliseconds(300), serverTurnWait: Duration = .seconds(2),
                minimumSpeech: Duration = .milliseconds(400), resumeAfter: Duration = .milliseconds(500),
                possibleSpeechLimit: Duration = .milliseconds(1500)) {
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
