import Basics
import Realtime

/// Tool calls (started after `response.done`, answered with `function_call_output` + `response.create`) and timers.
extension ConversationEngine {
    mutating func startToolCalls(_ started: [FunctionCallRecord]) {
        guard !started.isEmpty else { return }
        for call in started {
            calls.running[call.callID] = ToolCallTracker.Running(name: call.name, startedAt: now)
            emit(.callTool(callID: call.callID, name: call.name, arguments: call.arguments))
            log(.info, "tool \(call.name) started (\(call.callID))")
        }
        if started.contains(where: { !configuration.quietTools.contains($0.name) }) { emit(.playEarcon(.thinking)) }
        if armedTimers[.toolTimeout] == nil { arm(.toolTimeout, after: configuration.toolTimeout) }
    }

    mutating func handleToolFinished(callID: String, output: ToolOutput) {
        guard let running = calls.running.removeValue(forKey: callID) else {
            log(.debug, "result for \(callID) ignored (cancelled or unknown)")
            return
        }
        let duration = now.milliseconds(since: running.startedAt)
        metrics.toolFinished(durationMs: duration)
        if output.succeeded {
            log(.info, "tool \(running.name) answered in \(duration) ms")
        } else {
            log(.warning, "tool \(running.name) failed after \(duration) ms: \(output.text)")
        }
        send(.conversationItemCreate(.functionCallOutput(callID: callID, output: output.text)))
        if calls.running.isEmpty { answerToolResults() }
    }

    /// All outputs are in: one `response.create` for all of them. While the user is talking, the response
    /// that follows their turn (VAD or release) will see the outputs, so none is requested now.
    private mutating func answerToolResults() {
        cancelTimer(.toolTimeout)
        if state == .userSpeaking {
            response.answerOwed = true
            return
        }
        requestResponse(isAnswer: true)
        if state == .waitingForJarvis { enter(.aiSpeaking) }
    }

    /// The user's turn ended without a response (dropped or too long): answer pending tool results now.
    mutating func settleOwedAnswer() {
        guard response.answerOwed else { return }
        response.answerOwed = false
        requestResponse(isAnswer: true)
    }

    mutating func handleTimer(_ id: TimerID) {
        guard let deadline = armedTimers[id], deadline <= now else { return }
        armedTimers[id] = nil
        let seconds = { (duration: Duration) in "\(duration.wholeMilliseconds / 1000) s" }
        switch id {
        case .connectTimeout:
            fail(earcon: .offline, reason: "could not reach the Realtime API within \(seconds(configuration.connectTimeout))")
        case .quietPeriod:
            if extendQuietPeriodForNearEndSpeech() { return }
            endConversation(earcon: .done, reason: "quiet for \(seconds(configuration.quietPeriod))")
        case .userSpeakingLimit:
            log(.warning, "user turn longer than \(seconds(configuration.userSpeakingLimit)): dropped")
            if hold != nil {
                hold = nil
                emit(.uplink(.stop))
            }
            send(.inputAudioBufferClear)
            settleOwedAnswer()
            if response.isActive { enter(.processing) } else { enter(.listening) }
        case .processingTimeout:
            log(.warning, "no answer from the Realtime API within \(seconds(configuration.processingTimeout))")
            abandonResponse()
            failSay("the Realtime API did not answer in time")
            emit(.playEarcon(.error))
            afterSpeech()
        case .speakingWatchdog:
            log(.warning, "no voice progress for \(seconds(configuration.speakingWatchdog))")
            if voice.needsFlush { emit(.flushVoice) }
            voice.flushed()
            abandonResponse()
            failSay("its speech stopped half-way")
            afterSpeech()
        case .toolTimeout:
            for callID in calls.running.keys.sorted() {
                log(.warning, "tool \(calls.running[callID]?.name ?? "?") timed out after \(seconds(configuration.toolTimeout))")
                emit(.cancelTool(callID: callID))
                send(.conversationItemCreate(.functionCallOutput(callID: callID, output: configuration.toolTimeoutMessage)))
            }
            calls.running = [:]
            answerToolResults()
        case .errorHold:
            enter(.idle)
        case .bargeInConfirmation:
            confirmNearEndSpeech()
        case .serverTurnWait:
            serverTurnNeverCame()
        case .voiceResume:
            resumeVoice()
        case .possibleSpeechLimit:
            possibleSpeechLimitReached()
        case .mutedTap:
            mutedTapWindowEnded()
        case .timerChime:
            chimeAgain()
        case .timerSay:
            sayWhatRings()
        case .ringCap:
            stopRinging(because: "it rang for \(seconds(configuration.ringCap))")
        }
    }
}
