import Basics
import Realtime

/// Button gestures and typed requests.
extension ConversationEngine {
    mutating func handleButton(_ gesture: ButtonGesture) {
        switch gesture {
        case .tap(let pressedAt): handleTap(pressedAt: pressedAt)
        case .holdStarted(let pressedAt): startPushToTalk(pressedAt: pressedAt)
        case .holdEnded: endPushToTalk()
        case .longHold: resetJarvisSession(force: false)
        case .doubleTap: setMicrophoneMuted(!microphoneMuted)
        }
    }

    private mutating func handleTap(pressedAt: EngineTime) {
        if ringing != nil {  // first of all, a tap silences what rings (and its spoken reminder)
            stopRinging(because: "a tap")
            if interludeOnly, state.isInConversation {
                failSays(in: pendingAnnouncements, "a tap stopped it")
                pendingAnnouncements = []
                endConversation(earcon: nil, reason: "a tap stopped the timer")
            }
            return
        }
        switch state {
        case .idle, .error:
            if microphoneMuted {
                microphoneIsOff()
            } else {
                startConversation(.handsFree, audioSince: pressedAt)
            }
        case .connecting:
            if interludeOnly {  // the tap stops the announcement it is connecting for
                failSays(in: pendingAnnouncements, "a tap stopped it")
                pendingAnnouncements = []
            }
            endConversation(earcon: .done, reason: "tap while connecting")
        case .listening:
            endConversation(earcon: .done, reason: "tap")
        case .userSpeaking, .processing, .fillerSpeaking, .waitingForJarvis, .aiSpeaking:
            interrupt()
        }
    }

    /// A tap stops one thing, in priority order: assistant speech → pending Jarvis call → media.
    private mutating func interrupt() {
        if interludeOnly {  // a tap stops the DJ, not just this sentence
            failSays(in: pendingAnnouncements, "a tap stopped it")
            pendingAnnouncements = []
        }
        if assistantIsSpeaking {
            stopSpeech(cancelResponse: true)
            log(.info, "tap: stopped the assistant")
            afterSpeech()
            return
        }
        if !calls.running.isEmpty || !calls.pending.isEmpty {
            cancelToolCalls()
            log(.info, "tap: cancelled the pending Jarvis request")
            emit(.playEarcon(.done))
            finishTurn()
            enter(.listening)
            return
        }
        if mediaPlaying {
            emit(.stopMedia)
            log(.info, "tap: stopped media")
            return
        }
        if state == .userSpeaking, hold == nil {
            resetBargeIn()
            send(.inputAudioBufferClear)
            settleOwedAnswer()
        }
        if response.isActive { enter(.processing) } else { enter(.listening) }
    }

    /// Cancels running calls; each still gets an output so the conversation stays consistent.
    private mutating func cancelToolCalls() {
        for callID in calls.running.keys.sorted() {
            emit(.cancelTool(callID: callID))
            send(.conversationItemCreate(.functionCallOutput(callID: callID, output: configuration.toolCancelledMessage)))
        }
        calls = ToolCallTracker()
        cancelTimer(.toolTimeout)
    }

    private mutating func startPushToTalk(pressedAt: EngineTime) {
        guard !microphoneMuted else {
            microphoneIsOff()
            return
        }
        interludeOnly = false  // the user joins the conversation an announcement opened
        switch state {
        case .idle, .error:
            startConversation(.pushToTalk, audioSince: pressedAt)
            hold = PushToTalkHold(pressedAt: pressedAt)
        case .connecting:
            turnTaking = .pushToTalk
            hold = PushToTalkHold(pressedAt: pressedAt)
            pendingRelease = nil
            emit(.uplink(.capture(since: pressedAt)))
        case .listening, .userSpeaking, .processing, .fillerSpeaking, .waitingForJarvis, .aiSpeaking:
            if assistantIsSpeaking { stopSpeech(cancelResponse: true) }
            resetBargeIn()
            if turnTaking != .pushToTalk {
                turnTaking = .pushToTalk
                send(configuration.session.turnTakingUpdate(.pushToTalk))
            }
            send(.inputAudioBufferClear)
            hold = PushToTalkHold(pressedAt: pressedAt)
            emit(.uplink(.capture(since: pressedAt)))
            emit(.uplink(.stream))
            emit(.playEarcon(.listening))
            enter(.userSpeaking)
        }
    }

    private mutating func endPushToTalk() {
        guard let started = hold else { return }
        hold = nil
        let heldMs = now.milliseconds(since: started.pressedAt)
        let longEnough = Int64(heldMs) >= configuration.minimumCommit.wholeMilliseconds
        guard sessionReady else {
            pendingRelease = longEnough ? .commit : .drop
            return
        }
        emit(.uplink(.stop))
        if longEnough {
            commitUserTurn()
        } else {
            dropShortPress(heldMs: heldMs)
        }
    }

    /// Push-to-talk release with enough audio: commit, then ask for the answer.
    mutating func commitUserTurn() {
        response.answerOwed = false
        send(.inputAudioBufferCommit)
        userTurnEnded()
        requestResponse(isAnswer: false)
        enter(.processing)
    }

    /// Less than the minimum of audio: the API would reject the commit, so drop it silently.
    mutating func dropShortPress(heldMs: Int?) {
        send(.inputAudioBufferClear)
        log(.info, "push-to-talk too short (\(heldMs.map { "\($0) ms" } ?? "under the minimum")): dropped")
        settleOwedAnswer()
        if response.isActive { enter(.processing) } else { enter(.listening) }
    }

    /// The long-hold reset. Unless `force`d (`ctl reset`), a push-to-talk hold that heard speech is a long
    /// request, not the reset gesture: the long hold is ignored.
    mutating func resetJarvisSession(force: Bool) {
        if !force, hold?.heardSpeech == true {
            log(.info, "long hold ignored: the push-to-talk hold carries speech")
            return
        }
        emit(.resetJarvisSession)
        emit(.playEarcon(.reset))
        log(.notice, "long hold: Jarvis session reset")
        guard hold != nil else { return }
        hold = nil
        pendingRelease = nil
        if state == .connecting, !pendingAsks.isEmpty {
            emit(.uplink(.stop))  // the typed request still goes out once connected
        } else if state == .connecting || (completedTurns == 0 && calls.running.isEmpty && !response.isActive) {
            endConversation(earcon: nil, reason: "long hold")
        } else {
            emit(.uplink(.stop))
            send(.inputAudioBufferClear)
            settleOwedAnswer()
            if response.isActive { enter(.processing) } else { enter(.listening) }
        }
    }

    mutating func handleAsk(_ text: String) {
        let request = text.trimmed()
        guard !request.isEmpty else { return }
        switch state {
        case .idle, .error:
            startConversation(.text, audioSince: nil)
            pendingAsks.append(request)
        case .connecting:
            interludeOnly = false
            pendingAsks.append(request)
        case .listening, .userSpeaking, .processing, .fillerSpeaking, .waitingForJarvis, .aiSpeaking:
            interludeOnly = false
            if assistantIsSpeaking { stopSpeech(cancelResponse: true) }
            sendTypedRequests([request])
        }
    }

    mutating func sendTypedRequests(_ requests: [String]) {
        for request in requests {
            send(.conversationItemCreate(.message(role: .user, text: request)))
        }
        userTurnEnded()
        requestResponse(isAnswer: false)
        enter(.processing)
    }
}
