import Logging
import Realtime

/// Executing the engine's effects, one at a time, in order.
extension RunnerLoop {
    func execute(_ effect: ConversationEffect) async {
        switch effect {
        case .connectRealtime:
            if connection.want() { startConnect() }
        case .disconnectRealtime:
            await disconnect()
        case .send(let event):
            await send(event.jsonText())
        case .uplink(let command):
            for frame in audio.uplink(command, at: now) { await send(frame) }
        case .enqueueVoice(_, let base64):
            enqueueVoice(base64)
        case .flushVoice:
            flushVoice()
        case .pauseVoice:
            audio.pauseVoice()
        case .resumeVoice:
            audio.resumeVoice()
        case .pauseVoiceOnNearEndSpeech(let armed):
            audio.pauseVoiceOnNearEndSpeech(armed)
        case .callTool(let callID, let name, let arguments):
            startTool(callID: callID, name: name, arguments: arguments)
        case .cancelTool(let callID):
            tools.cancel(callID)
        case .startTimer(let id, let deadline):
            startTimer(id, deadline: deadline)
        case .cancelTimer(let id):
            timers.cancel(id)
        case .duckMedia:
            audio.duckMedia()
        case .unduckMedia:
            audio.releaseMedia()
        case .stopMedia:
            await runner.hooks.stopMedia()
        case .playEarcon(let earcon):
            audio.playEarcon(earcon)
        case .setLED(let pattern):
            runner.hooks.setLED(pattern)
        case .resetJarvisSession:
            await runner.jarvis?.resetSession()
        case .microphoneMuteChanged(let muted):
            runner.hooks.microphoneMuteChanged(muted)
        case .announcementFinished(let id, let failure):
            sayWaiters.answer(id, failure.map(SayOutcome.failed) ?? .spoken)
        case .turnCompleted(let metrics):
            runner.hooks.turnCompleted(metrics)
        case .log(let level, let line):
            log(level, line)
        case .transcript(let transcript):
            guard configuration.logTranscripts else { return }
            switch transcript {
            case .heard(let text): log(.info, "heard: \"\(text)\"")
            case .said(let text): log(.info, "said: \"\(text)\"")
            }
        }
    }

    private func log(_ level: LogLevel, _ line: String) {
        let swiftLogLevel: Logger.Level =
            switch level {
            case .debug: .debug
            case .info: .info
            case .notice: .notice
            case .warning: .warning
            case .error: .error
            }
        logger.log(level: swiftLogLevel, "\(line)")
    }

    // MARK: voice

    private func enqueueVoice(_ base64: String) {
        let capacity = (Base64.decodedLength(of: base64) + 3) / 2
        if voiceScratch.count < capacity { voiceScratch = [Int16](repeating: 0, count: capacity) }
        let samples: Int
        if let bytes = voiceScratch.withUnsafeMutableBytes({ Base64.decode(base64, into: $0) }) {
            samples = bytes / 2
        } else {
            // The engine counted these samples from the text's length: play silence instead, so the
            // played count can still reach what it expects.
            logger.warning("Realtime: an audio delta was not valid base64; played as silence")
            samples = Base64.decodedLength(of: base64) / 2
            for index in 0..<samples { voiceScratch[index] = 0 }
        }
        voiceScratch.withUnsafeBufferPointer { audio.enqueueVoice(UnsafeBufferPointer(rebasing: $0[0..<samples])) }
        voice.enqueued(samples)
    }

    func flushVoice() {
        audio.flushVoice()
        voice.flushed()
    }

    // MARK: tools and timers

    private func startTool(callID: String, name: String, arguments: String) {
        let registry = runner.tools
        let continuation = continuation
        tools.start(callID) { owned in
            Task {
                let output = await registry.dispatch(name: name, arguments: arguments)
                continuation.yield(.toolFinished(callID: callID, token: owned, output: output))
            }
        }
    }

    private func startTimer(_ id: TimerID, deadline: EngineTime) {
        let clock = runner.clock
        let continuation = continuation
        timers.start(id) { owned in
            Task {
                do {
                    try await clock.sleep(until: deadline)
                } catch {
                    return
                }
                continuation.yield(.timerFired(id, token: owned))
            }
        }
    }
}
