import Basics

/// The microphone privacy mute: while it is on, no conversation that listens starts, so nothing is
/// captured for the uplink; a tap or a hold says the microphone is off instead.
extension ConversationEngine {
    /// What a tap on a muted microphone hears, spoken like the owner's announcements.
    static let microphoneOffMessage = "The microphone is off."

    mutating func setMicrophoneMuted(_ muted: Bool) {
        guard muted != microphoneMuted else { return }
        microphoneMuted = muted
        cancelTimer(.mutedTap)
        emit(.microphoneMuteChanged(muted))
        emit(.playEarcon(muted ? .microphoneOff : .microphoneOn))
        log(.notice, muted ? "microphone muted: nothing is heard or sent until it is turned on again" : "microphone on")
        if muted, state.isInConversation, turnTaking != .text {
            endConversation(earcon: nil, reason: "the microphone was muted")
        }
        if state == .idle { emit(.setLED(ledPattern(for: .idle))) }
    }

    /// The LED for `state`: idle shows ringing timers, else the mute while it is on.
    func ledPattern(for state: ConversationState) -> LEDPattern {
        guard state == .idle else { return state.ledPattern }
        return ringing != nil ? .ringing : microphoneMuted ? .muted : .off
    }

    /// A tap or a hold on a muted microphone: its sound now; the spoken reminder once the double-tap window
    /// has passed without a second tap (which unmutes instead).
    mutating func microphoneIsOff() {
        emit(.playEarcon(.microphoneOff))
        log(.info, "the microphone is muted: not listening")
        if state == .idle || state == .error { arm(.mutedTap, after: configuration.doubleTapWindow) }
    }

    /// The double-tap window after a tap on a muted microphone passed: say it.
    mutating func mutedTapWindowEnded() {
        guard microphoneMuted else { return }
        handleSay(Self.microphoneOffMessage, id: Self.deviceNoticeID)
    }
}
