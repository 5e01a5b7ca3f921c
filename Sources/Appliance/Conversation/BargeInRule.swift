/// How a hands-free conversation decides that the user is talking over the assistant.
///
/// The server's VAD hears the uplink after echo cancellation; a real loudspeaker's non-linear echo leaves
/// enough residual for it to fire while only the assistant talks. So the server never interrupts by
/// itself (`interrupt_response: false`) and barge-in is the appliance's decision:
///
/// - With a local detector (`localDetector`, the service): near-end speech reported by the capture side
///   (`ConversationEvent.nearEndSpeech`) that lasts `confirmation` stops the assistant on its own — a real
///   talker is caught within the detector's onset + `confirmation`, without waiting for the server.
///   The server's `speech_started` while the assistant is audible (or within `echoGuard` after it) is
///   accepted only when the detector hears near-end speech (now, or within `lookback` before); until
///   then it is held, and when its `speech_stopped` comes unconfirmed the committed item is deleted
///   (`conversation.item.delete`) and not answered: it was the speaker's echo.
/// - Without one (`localDetector == false`): the server's `speech_started` is trusted, as before, but the
///   engine still cancels the response itself (the server no longer does).
///
/// A tap always interrupts, whatever the detectors say.
public struct BargeInRule: Sendable, Equatable {
    /// A near-end speech detector feeds `ConversationEvent.nearEndSpeech`. Default false (tests without
    /// a capture chain); the service sets it.
    public var localDetector: Bool
    /// Near-end speech must last this long before it stops the assistant (on top of the detector's own
    /// debounce). Default 20 ms.
    public var confirmation: Duration
    /// After the assistant's audio stopped, its echo (room decay, server VAD latency) may still start a
    /// server turn for this long. Default 800 ms.
    public var echoGuard: Duration
    /// A server `speech_started` is confirmed by near-end speech seen up to this long before it. Default 300 ms.
    public var lookback: Duration
    /// After a local barge-in, the server's VAD should report the user's turn within this; otherwise the
    /// engine stops waiting and listens. Default 2 s.
    public var serverTurnWait: Duration

    public init(localDetector: Bool = false, confirmation: Duration = .milliseconds(20), echoGuard: Duration = .milliseconds(800),
                lookback: Duration = .milliseconds(300), serverTurnWait: Duration = .seconds(2)) {
        self.localDetector = localDetector
        self.confirmation = confirmation
        self.echoGuard = echoGuard
        self.lookback = lookback
        self.serverTurnWait = serverTurnWait
    }
}
