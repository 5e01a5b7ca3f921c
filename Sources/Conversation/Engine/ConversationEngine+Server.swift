import Realtime

/// Realtime connection and server events.
extension ConversationEngine {
    mutating func handleConnected() {
        realtimeConnected = true
        if state.isInConversation {
            log(.info, "Realtime connected")
        } else {
            emit(.disconnectRealtime)
        }
    }

    mutating func handleConnectionLost(_ end: RealtimeDisconnect, reason: String, fatal: Bool) {
        realtimeConnected = false
        sessionReady = false
        guard state.isInConversation else {
            log(.debug, reason)
            return
        }
        if fatal {
            fail(earcon: end.reason == .outOfCredit ? .outOfCredit : .offline, reason: reason)
        } else if state == .connecting {
            log(.warning, reason + "; retrying")
        } else {
            fail(earcon: .error, reason: reason)
        }
    }

    mutating func handleServer(_ event: ServerEvent) {
        guard state.isInConversation else { return }
        switch event {
        case .sessionCreated(let info): sessionCreated(info)
        case .sessionUpdated: log(.debug, "session.updated")
        case .error(let error): serverError(error)
        case .speechStarted(_, let itemID): speechStarted(itemID: itemID)
        case .speechStopped(_, let itemID): speechStopped(itemID: itemID)
        case .responseCreated(let info): responseCreated(info)
        case .outputAudioDelta(let delta): audioDelta(delta)
        case .outputAudioDone(_, let itemID): voice.audioDone(itemID: itemID)
        case .functionCallArgumentsDone(let call):
            guard !response.isDiscarded(call.responseID) else { return }
            calls.remember(FunctionCallRecord(responseID: call.responseID, callID: call.callID, name: call.name, arguments: call.arguments))
        case .outputItemDone(let responseID, let item):
            guard let call = item.functionCall, !response.isDiscarded(responseID) else { return }
            calls.remember(FunctionCallRecord(responseID: responseID, callID: call.callID, name: call.name, arguments: call.arguments))
        case .responseDone(let info): responseDone(info)
        case .inputAudioTranscriptionCompleted(_, let transcript): emit(.transcript(.heard(transcript)))
        case .outputAudioTranscriptDone(_, _, let transcript): emit(.transcript(.said(transcript)))
        case .inputAudioBufferCommitted, .inputAudioBufferCleared, .conversationItemAdded, .conversationItemDone,
            .conversationItemTruncated, .outputItemAdded, .outputAudioTranscriptDelta, .functionCallArgumentsDelta,
            .rateLimitsUpdated, .unknown:
            break
        }
    }

    private mutating func sessionCreated(_ info: SessionInfo) {
        guard !sessionReady else { return }
        sessionReady = true
        log(.info, "Realtime session \(info.id ?? "?") ready (\(info.model ?? "model ?"))")
        send(configuration.session.sessionUpdate(tools: configuration.tools, turnTaking: turnTaking))
        if turnTaking != .text { emit(.uplink(.stream)) }
        if let release = pendingRelease {
            pendingRelease = nil
            emit(.uplink(.stop))
            switch release {
            case .commit: commitUserTurn()
            case .drop: dropShortPress(heldMs: nil)
            }
        } else if hold != nil {
            enter(.userSpeaking)
        }
        if !pendingAsks.isEmpty {
            let requests = pendingAsks
            pendingAsks = []
            sendTypedRequests(requests)
        } else if state == .connecting, interludeOnly, !pendingAnnouncements.isEmpty {
            sendAnnouncements()  // straight to the interlude: never shown as listening
        } else if state == .connecting {
            enter(.listening)
        }
    }

    private mutating func serverError(_ error: RealtimeError) {
        if error.isBenign {
            log(.info, "benign: \(error)")
            if error.code == "conversation_already_has_active_response" {
                // Another response is running (VAD created it): ask again when it is done.
                response.serverHasActiveResponse()
            }
            return
        }
        if error.code == "session_expired" {
            fail(earcon: .error, reason: error.description)
            return
        }
        if RealtimeDisconnect.classify(error, context: RealtimeConnectionContext(model: configuration.model.id))?.isFatal == true {
            // The connection ends on it, and the runner reports that end once, in plain words, with its sound.
            log(.debug, error.description)
            return
        }
        log(.error, error.description)
        emit(.playEarcon(.error))
        if state == .processing, !response.isActive {
            finishTurn()
            enter(.listening)
        }
    }

    private mutating func responseCreated(_ info: ResponseInfo) {
        if !response.created(id: info.id) {
            send(.responseCancel(responseID: nil))
            return
        }
        if state == .listening { enter(.processing) }
    }

    private mutating func audioDelta(_ delta: AudioDelta) {
        guard state != .connecting, !response.isDiscarded(delta.responseID) else { return }
        if state == .userSpeaking, hold != nil { return }
        voice.receive(itemID: delta.itemID, responseID: delta.responseID, samples: delta.sampleCount)
        saying?.heardAudio = true
        emit(.enqueueVoice(itemID: delta.itemID, audio: delta.delta))
        let isAnswer = response.speaksAnswer(delta.responseID)
        metrics.audioReceived(at: now, itemID: delta.itemID, isAnswer: isAnswer)
        switch state {
        case .listening, .processing, .waitingForJarvis:
            enter(isAnswer || state == .waitingForJarvis ? .aiSpeaking : .fillerSpeaking)
        case .fillerSpeaking where isAnswer:
            enter(.aiSpeaking)
        case .fillerSpeaking, .aiSpeaking:
            feedSpeakingWatchdog()
        case .idle, .connecting, .userSpeaking, .error:
            break
        }
    }

    private mutating func responseDone(_ info: ResponseInfo) {
        response.done()
        voice.responseDone(info.id)
        if let usage = info.usage {
            spentUSD += configuration.model.pricing.cost(of: usage)
            metrics.add(usage, pricing: configuration.model.pricing)
            log(.debug, "response \(info.id ?? "?") \(info.status): tokens in \(usage.inputTokens) out \(usage.outputTokens)")
        }
        for call in info.functionCalls where !response.isDiscarded(info.id) {
            calls.remember(FunctionCallRecord(responseID: info.id, callID: call.callID, name: call.name, arguments: call.arguments))
        }
        let finished = calls.takePending(for: info.id)
        if info.status == "completed", !response.isDiscarded(info.id) {
            startToolCalls(finished)
        } else if !finished.isEmpty {
            log(.info, "response \(info.status): dropped \(finished.count) tool call(s)")
        }
        if info.status == "failed" {
            log(.warning, "response failed: \(info.statusError ?? info.statusReason ?? "no detail")")
        }
        if let isAnswer = response.takeDeferred() {
            requestResponse(isAnswer: isAnswer)
        }
        switch state {
        case .fillerSpeaking, .aiSpeaking:
            if voice.isPlaying { feedSpeakingWatchdog() } else { afterSpeech() }
        case .processing:
            afterSpeech()
        case .idle, .connecting, .listening, .userSpeaking, .waitingForJarvis, .error:
            break
        }
    }
}
