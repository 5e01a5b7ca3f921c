import Realtime

/// The voice channel: stopping speech with the truncate rule, and playback progress.
extension ConversationEngine {
    /// The assistant is talking or about to: a response is in flight (and not already stopped), or its audio
    /// is still queued/unfinished.
    var assistantIsSpeaking: Bool {
        (response.isActive && !response.currentIsDiscarded) || voice.isPlaying || voice.stopPlan() != nil
    }

    /// Stops the assistant: `response.cancel` if one is active (a tap; the server cancels by itself on VAD
    /// barge-in), flush the voice channel, truncate the item being heard at what was actually played
    /// (clamped to what was received) and delete the items queued after it, so the model knows where it
    /// was cut off and what the user never heard.
    mutating func stopSpeech(cancelResponse: Bool) {
        failSay("it was interrupted")
        if response.stopCurrent(), cancelResponse { send(.responseCancel(responseID: nil)) }
        for responseID in Set(voice.items.map(\.responseID)) { response.stop(responseID: responseID) }
        let plan = voice.stopPlan()
        if voice.needsFlush || plan != nil {
            emit(.flushVoice)
            if let truncate = plan?.truncate {
                send(.conversationItemTruncate(itemID: truncate.itemID, contentIndex: 0, audioEndMs: truncate.audioEndMs))
            }
            for itemID in plan?.delete ?? [] { send(.conversationItemDelete(itemID: itemID)) }
        }
        voice.flushed()
    }

    mutating func handleVoicePlayed(_ samples: Int) {
        voice.reportPlayed(samples)
        guard state.isSpeaking else { return }
        if !voice.isPlaying, !response.isActive {
            afterSpeech()
        } else {
            feedSpeakingWatchdog()
        }
    }

    /// Gives up on the response in flight (no events from the server): cancel it and forget the flag.
    mutating func abandonResponse() {
        guard response.abandon() else { return }
        send(.responseCancel(responseID: nil))
    }
}
