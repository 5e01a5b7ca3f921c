import Realtime

/// The voice channel: stopping speech with the truncate rule, and playback progress.
extension ConversationEngine {
    /// The assistant is talking or about to: a response is in flight (and not already stopped), or its audio
    /// is still queued/unfinished.
    var assistantIsSpeaking: Bool {
        (response.isActive && !response.currentIsDiscarded) || voice.isPlaying || voice.truncation() != nil
    }

    /// Stops the assistant: `response.cancel` if one is active (a tap; the server cancels by itself on VAD
    /// barge-in), flush the voice channel, and truncate the item at what was actually played, clamped to
    /// what was received, so the model knows where it was cut off.
    mutating func stopSpeech(cancelResponse: Bool) {
        failSay("it was interrupted")
        if response.stopCurrent(), cancelResponse { send(.responseCancel(responseID: nil)) }
        if let item = voice.item { response.stop(responseID: item.responseID) }
        let truncation = voice.truncation()
        if voice.needsFlush || truncation != nil {
            emit(.flushVoice)
            if let truncation {
                send(.conversationItemTruncate(itemID: truncation.itemID, contentIndex: 0, audioEndMs: truncation.audioEndMs))
            }
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
