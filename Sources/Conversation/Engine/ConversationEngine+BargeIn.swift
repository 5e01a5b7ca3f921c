import Basics
import Realtime

/// Barge-in (`BargeInRule`): the local near-end speech detector, the voice paused for it, the server VAD's
/// turns, and echo turns.
extension ConversationEngine {
    /// What the capture side's near-end speech detector last reported.
    struct NearEndSpeech: Sendable {
        var active = false
        /// Possible near-end speech (`ConversationEvent.possibleNearEndSpeech`): pauses, and holds a pause, never stops.
        var possible = false
        /// The last instant near-end speech was on (its end, or its start while it lasts).
        var lastHeard: EngineTime?
    }

    /// A server VAD turn (`speech_started` … `speech_stopped`) and whether it was accepted as the user's.
    struct ServerTurn: Sendable {
        var itemID: String
        var confirmed: Bool
    }

    var rule: BargeInRule { configuration.bargeIn }

    /// The assistant's voice is coming out of the speaker (queued audio not yet played, or a speaking state).
    var voiceAudible: Bool { voice.isPlaying || state.isSpeaking }

    /// The speaker may still carry the assistant's voice into the mic (playing, or stopped less than
    /// `echoGuard` ago).
    var echoPossible: Bool {
        if voiceAudible { return true }
        guard let audible = voiceAudibleAt else { return false }
        return Int64(now.milliseconds(since: audible)) < rule.echoGuard.wholeMilliseconds
    }

    var nearEndHeardRecently: Bool {
        if nearEnd.active { return true }
        guard let last = nearEnd.lastHeard else { return false }
        return Int64(now.milliseconds(since: last)) <= rule.lookback.wholeMilliseconds
    }

    /// A hands-free conversation whose session is up and whose turns the server's VAD finds.
    var vadTurnsActive: Bool {
        turnTaking == .handsFree && sessionReady && state.isInConversation && state != .connecting && hold == nil
    }

    mutating func noteVoiceAudible() {
        if voiceAudible { voiceAudibleAt = now }
    }

    mutating func resetBargeIn() {
        serverTurn = nil
        localBargeInPending = false
        cancelTimer(.bargeInConfirmation)
        cancelTimer(.serverTurnWait)
        cancelTimer(.voiceResume)
        cancelTimer(.possibleSpeechLimit)
    }

    // MARK: - The local detector

    mutating func handleNearEndSpeech(_ active: Bool) {
        guard active != nearEnd.active else { return }
        nearEnd.active = active
        nearEnd.lastHeard = now
        if voice.pause != nil {
            nearEndSpeechWhilePaused(active)
            return
        }
        guard active else {
            cancelTimer(.bargeInConfirmation)
            return
        }
        guard rule.localDetector, vadTurnsActive else { return }
        let heldTurn = serverTurn.map { !$0.confirmed } ?? false
        if voiceAudible {
            // The server's VAD heard a turn too: no confirmation wait.
            if heldTurn || rule.confirmation <= .zero { pauseVoice() } else { arm(.bargeInConfirmation, after: rule.confirmation) }
        } else if let turn = serverTurn, heldTurn {
            acceptServerTurn(turn.itemID, reason: "server VAD and near-end speech")
        }
    }

    /// Possible near-end speech pauses the voice at once (with no confirmation wait configured) and holds a pause
    /// while it lasts; only the verdict itself adds up to the `minimumSpeech` that stops the assistant.
    mutating func handlePossibleNearEndSpeech(_ active: Bool) {
        guard active != nearEnd.possible else { return }
        nearEnd.possible = active
        if voice.pause != nil {
            if active {
                cancelTimer(.voiceResume)
                if !nearEnd.active { arm(.possibleSpeechLimit, after: rule.possibleSpeechLimit) }
            } else if !nearEnd.active {
                cancelTimer(.possibleSpeechLimit)
                arm(.voiceResume, after: rule.resumeAfter)
            }
            return
        }
        guard active, rule.localDetector, rule.confirmation <= .zero, vadTurnsActive, voiceAudible else { return }
        pauseVoice()
    }

    /// The confirmation ran out with near-end speech still on: it lasted `confirmation` while the assistant
    /// talked (pause the voice), or `minimumSpeech` in all while it was paused (stop the assistant).
    mutating func confirmNearEndSpeech() {
        guard nearEnd.active, vadTurnsActive else { return }
        if voice.pause != nil {
            bargeIn()
        } else if voiceAudible {
            pauseVoice()
        }
    }

    /// Arms the audio side's own pause exactly while the next verdict would pause the voice here at once
    /// (no confirmation wait), so the speaker falls silent without waiting for the verdict to reach the
    /// engine; the engine's pause follows at its next tick, before it disarms.
    mutating func armNearEndPause() {
        let armed = rule.localDetector && rule.confirmation <= .zero && vadTurnsActive && voiceAudible && voice.pause == nil
        guard armed != nearEndPauseArmed else { return }
        nearEndPauseArmed = armed
        emit(.pauseVoiceOnNearEndSpeech(armed))
    }

    /// Holds the assistant's voice where it is while the detector decides whether someone is talking.
    private mutating func pauseVoice() {
        cancelTimer(.bargeInConfirmation)
        emit(.pauseVoice)
        voice.pause = VoicePlayback.Pause(speechSince: nearEnd.active ? nearEnd.lastHeard : nil)
        log(
            .info,
            nearEnd.active
                ? "near-end speech over the assistant: voice paused"
                : "someone may be talking over the assistant: voice paused")
        if nearEnd.active {
            armMinimumSpeech()
        } else if nearEnd.possible {
            arm(.possibleSpeechLimit, after: rule.possibleSpeechLimit)
        } else {
            arm(.voiceResume, after: rule.resumeAfter)
        }
    }

    private mutating func nearEndSpeechWhilePaused(_ active: Bool) {
        guard var pause = voice.pause else { return }
        if active {
            cancelTimer(.voiceResume)
            cancelTimer(.possibleSpeechLimit)
            pause.speechSince = now
            voice.pause = pause
            armMinimumSpeech()
        } else {
            if let since = pause.speechSince { pause.heard += .milliseconds(now.milliseconds(since: since)) }
            pause.speechSince = nil
            voice.pause = pause
            cancelTimer(.bargeInConfirmation)
            if nearEnd.possible {
                arm(.possibleSpeechLimit, after: rule.possibleSpeechLimit)
            } else {
                arm(.voiceResume, after: rule.resumeAfter)
            }
        }
    }

    /// Arms the confirmation for the near-end speech still missing to stop the assistant.
    private mutating func armMinimumSpeech() {
        guard let pause = voice.pause, let since = pause.speechSince else { return }
        let left = rule.minimumSpeech - pause.heard - .milliseconds(now.milliseconds(since: since))
        if left <= .zero { bargeIn() } else { arm(.bargeInConfirmation, after: left) }
    }

    /// The near-end speech that paused the voice ended short of `minimumSpeech`: the answer goes on.
    mutating func resumeVoice() {
        guard let pause = voice.pause, !nearEnd.active, !nearEnd.possible else { return }
        letVoiceGoOn()
        log(
            .info,
            "near-end speech over the assistant lasted \(pause.heard.wholeMilliseconds) ms, "
                + "under the \(rule.minimumSpeech.wholeMilliseconds) ms that stop it: the voice goes on")
    }

    /// Only possible near-end speech has held the pause for `possibleSpeechLimit`: the answer goes on while it lasts.
    mutating func possibleSpeechLimitReached() {
        guard voice.pause != nil, !nearEnd.active else { return }
        letVoiceGoOn()
        log(
            .info,
            "a sound near the device held the assistant for \(rule.possibleSpeechLimit.wholeMilliseconds) ms "
                + "without near-end speech: the voice goes on")
    }

    private mutating func letVoiceGoOn() {
        voice.pause = nil
        cancelTimer(.voiceResume)
        cancelTimer(.possibleSpeechLimit)
        emit(.resumeVoice)
        pausesResumed += 1
        feedSpeakingWatchdog()
    }

    /// The voice is paused but nothing is left to hold (the answer ended, or the conversation moved on):
    /// release the channel silently.
    mutating func endPauseWithoutSpeech() {
        guard voice.pause != nil, !voiceAudible else { return }
        voice.pause = nil
        emit(.resumeVoice)
        cancelTimer(.voiceResume)
        cancelTimer(.possibleSpeechLimit)
        cancelTimer(.bargeInConfirmation)
    }

    private mutating func bargeIn() {
        cancelTimer(.voiceResume)
        cancelTimer(.possibleSpeechLimit)
        stopSpeech(cancelResponse: true)
        bargeIns += 1
        log(.info, "barge-in: near-end speech over the assistant")
        finishTurn(cutByBargeIn: true)
        localBargeInPending = serverTurn == nil
        if localBargeInPending { arm(.serverTurnWait, after: rule.serverTurnWait) }
        serverTurn?.confirmed = true
        enter(.userSpeaking)
    }

    /// The quiet period ran out, but the local detector heard someone talk within it and the server's VAD
    /// has not reported a turn (a slow network, a slow server): the conversation is quiet only a whole
    /// quiet period after that speech (at least `serverTurnWait` from now). Once per stretch of
    /// `listening`, so a sound the server never takes for speech delays the end only once.
    mutating func extendQuietPeriodForNearEndSpeech() -> Bool {
        guard rule.localDetector, turnTaking == .handsFree, state == .listening, !quietPeriodExtended,
            let last = nearEnd.lastHeard
        else { return false }
        let since = nearEnd.active ? Duration.zero : .milliseconds(now.milliseconds(since: last))
        guard since < configuration.quietPeriod else { return false }
        quietPeriodExtended = true
        let wait = max(configuration.quietPeriod - since, rule.serverTurnWait)
        let heard = nearEnd.active ? "is talking" : "talked \(since.wholeMilliseconds) ms ago"
        log(
            .info,
            "quiet period over, but someone near the device \(heard): waiting \(wait.wholeMilliseconds) ms more "
                + "for the server to hear a turn")
        arm(.quietPeriod, after: wait)
        return true
    }

    /// The server's VAD never reported the turn the local detector barged in for: listen again.
    mutating func serverTurnNeverCame() {
        guard localBargeInPending else { return }
        localBargeInPending = false
        guard state == .userSpeaking, hold == nil, serverTurn == nil else { return }
        log(.info, "barge-in: the server heard no speech; listening")
        settleOwedAnswer()
        if response.isActive { enter(.processing) } else { enter(.listening) }
    }

    // MARK: - The server's VAD

    mutating func speechStarted(itemID: String) {
        guard turnTaking == .handsFree, state != .connecting, hold == nil else { return }
        // While the voice plays the server's turn alone never stops it (at most it pauses it, with the
        // detector's speech just before); in the echo guard after it, near-end speech confirms it at once.
        if rule.localDetector, echoPossible, !localBargeInPending, voiceAudible || !nearEndHeardRecently {
            serverTurn = ServerTurn(itemID: itemID, confirmed: false)
            if voiceAudible, voice.pause == nil, nearEndHeardRecently, vadTurnsActive {
                log(.info, "speech_started while the assistant is audible, near-end speech heard: waiting for more")
                pauseVoice()
            } else {
                log(.info, "speech_started while the assistant is audible: waiting for near-end speech")
            }
            return
        }
        acceptServerTurn(itemID, reason: "server VAD")
    }

    private mutating func acceptServerTurn(_ itemID: String, reason: String) {
        serverTurn = ServerTurn(itemID: itemID, confirmed: true)
        localBargeInPending = false
        cancelTimer(.serverTurnWait)
        cancelTimer(.bargeInConfirmation)
        if assistantIsSpeaking || state.isSpeaking {
            // The server does not interrupt by itself (`interrupt_response: false`): cancel here.
            stopSpeech(cancelResponse: true)
            bargeIns += 1
            log(.info, "barge-in (\(reason))")
            finishTurn(cutByBargeIn: true)
        }
        enter(.userSpeaking)
    }

    mutating func speechStopped(itemID: String) {
        if let turn = serverTurn, !turn.confirmed {
            serverTurn = nil
            let id = turn.itemID.isEmpty ? itemID : turn.itemID
            if !id.isEmpty { send(.conversationItemDelete(itemID: id)) }
            echoTurnsIgnored += 1
            log(.info, "ignored a turn the server heard while the assistant spoke: no near-end speech (echo)")
            return
        }
        serverTurn = nil
        guard state == .userSpeaking, hold == nil else { return }
        response.answerOwed = false  // the response to this turn sees the tool outputs too
        userTurnEnded()
        // `create_response: false`: the turn is answered because the appliance accepted it.
        requestResponse(isAnswer: false)
        enter(.processing)
    }
}
