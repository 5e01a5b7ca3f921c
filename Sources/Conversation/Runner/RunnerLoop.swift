import Logging
import Realtime

/// The runner's loop state. Lives inside `ConversationRunner.run()` and is touched only by that task;
/// the tasks it starts (connect, link reader, tools, timers, retries) report back through the input stream.
final class RunnerLoop {
    let runner: ConversationRunner
    var engine: ConversationEngine
    var configuration: ConversationRunnerConfiguration { runner.configuration }
    var audio: any ConversationAudio { runner.audio }
    var logger: Logger { runner.logger }
    var continuation: AsyncStream<RunnerInput>.Continuation { runner.continuation }

    /// The time handed to the engine with the event being handled (effects use it too).
    var now = EngineTime.zero
    var connection = RealtimeConnectionState()
    /// Tool calls by call id; cancelled ones are awaited at shutdown.
    var tools = OwnedTasks<String>(awaitsCancelled: true)
    var timers = OwnedTasks<TimerID>(awaitsCancelled: false)
    var voice = VoiceOutputProgress()
    /// Decoding buffer for the voice's audio deltas, grown to the largest one.
    var voiceScratch: [Int16] = []
    /// The capture side's near-end speech verdict last fed to the engine.
    var nearEndSpeech = false
    var possibleNearEndSpeech = false
    var sayWaiters = SayWaiters()
    /// The engine's `spentUSD` last put into the status snapshot.
    var recordedSpending: Double = 0

    init(runner: ConversationRunner) {
        self.runner = runner
        engine = ConversationEngine(configuration: runner.configuration.engine)
        engine.microphoneMuted = runner.configuration.startsMuted
    }

    func run(_ inputs: AsyncStream<RunnerInput>) async {
        logger.info("conversation runner started")
        if engine.microphoneMuted {
            logger.notice("the microphone is muted (as it was left): nothing is heard until it is turned on")
            runner.hooks.setLED(engine.ledPattern(for: engine.state))
        }
        publishStatus()
        var iterator = inputs.makeAsyncIterator()
        while let input = await iterator.next() {
            if case .shutdown = input { break }
            await handle(input)
            publishStatus()
            runner.setIdleTicks(!engine.state.isInConversation && !audio.isOutputPending)
        }
        await shutdown()
        // `say` requests posted while the loop stopped are answered, never left waiting.
        while let input = await iterator.next() {
            if case .say(_, _, let reply) = input { reply.resume(returning: .failed("the service is stopping")) }
        }
    }

    // MARK: inputs

    private func handle(_ input: RunnerInput) async {
        switch input {
        case .engine(let event):
            await feed(event)
        case .linkOpened(let opened, let newLink):
            await linkOpened(opened, newLink)
        case .connectFailed(let failed, let error):
            guard connection.connectFailed(failed) else { return }
            await connectionLost(error, wasOpen: false)
        case .link(let from, let event):
            guard connection.isCurrentLink(from) else { return }
            await linkEvent(event)
        case .linkEnded(let from, let end):
            guard connection.isCurrentLink(from) else { return }
            await linkClosed(end)
        case .retryConnect(let from):
            guard connection.retryDue(from, engineState: engine.state) else { return }
            startConnect()
        case .toolFinished(let callID, let finished, let output):
            guard tools.finished(callID, token: finished) else { return }
            applyDuckingRequest()  // before the model answers (duck_audio's own reply is spoken at the new level)
            await feed(.toolFinished(callID: callID, output: output))
        case .timerFired(let id, let fired):
            guard timers.finished(id, token: fired) else { return }
            await feed(.timerFired(id))
        case .tick:
            runner.tickQueued.store(false, ordering: .releasing)
            await tick()
            runner.ticksHandled.add(1, ordering: .relaxed)
        case .mediaVolume(let volume):
            audio.setMediaVolume(volume)
        case .announcementPlaying(let playing):
            audio.setAnnouncementPlaying(playing)
        case .voiceVolume(let level):
            audio.setVoiceVolume(level)
        case .say(let text, let id, let reply):
            sayWaiters.add(id, reply)
            await feed(.say(text: text, id: id))
        case .sayAbandoned(let id):
            sayWaiters.answer(id, .failed("no longer waiting"))
        case .shutdown:
            break
        }
    }

    /// Feeds one event to the engine and executes its effects in order.
    func feed(_ event: ConversationEvent) async {
        // The engine judges barge-in truncation and speech end by the playhead: bring it up to date first.
        if case .voicePlayed = event {} else { await reportPlayback() }
        now = runner.clock.now()
        let before = engine.state
        let effects = engine.handle(event, at: now)
        let after = engine.state
        if before != after {
            logger.info("state: \(before.rawValue) -> \(after.rawValue) (\(event.cause))")
            runner.hooks.stateChanged(after)
        }
        for effect in effects { await execute(effect) }
        // The engine forgot its voice item without a flush (everything was played): restart our count too.
        if voice.needsFlush(engineReceived: engine.voice.received) { flushVoice() }
        if !after.isInConversation, engine.ringing == nil {
            audio.releaseMedia()  // also forgets a duck_audio level
            runner.ducking?.clear()
        }
    }

    private func tick() async {
        audio.pump()
        for frame in audio.pullUplink(at: runner.clock.now()) { await send(frame) }
        if audio.takeSpeechDetected() { await feed(.userSpeechDetected) }
        // Possible near-end speech first: a talker's first frames usually turn both on at the same tick, and
        // the engine pauses on either.
        let possible = audio.possibleNearEndSpeechActive()
        if possible != possibleNearEndSpeech {
            possibleNearEndSpeech = possible
            await feed(.possibleNearEndSpeech(possible))
        }
        let nearEnd = audio.nearEndSpeechActive()
        if nearEnd != nearEndSpeech {
            nearEndSpeech = nearEnd
            logger.debug("near-end speech \(nearEnd ? "started" : "ended")")
            await feed(.nearEndSpeech(nearEnd))
        }
        applyDuckingRequest()
        await reportPlayback()
    }

    /// A `duck_audio` level asked for by the tool; only a running conversation takes it.
    private func applyDuckingRequest() {
        guard let level = runner.ducking?.take(), engine.state.isInConversation else { return }
        audio.setDuckLevel(level)
        logger.info("media ducked to \(Int((level * 100).rounded())) % while talking (duck_audio)")
    }

    /// Feeds `voicePlayed` when the playhead moved since the last report.
    private func reportPlayback() async {
        guard let played = voice.played(audio.voicePlayedSamples()) else { return }
        await feed(.voicePlayed(samples: played))
    }

    func publishStatus() {
        let state = engine.state
        let connected = connection.isOpen
        let media = audio.mediaGain
        let toolsRunning = tools.count
        let malformed = connection.malformedEvents
        let unknown = connection.unknownEvents
        let bargeIns = engine.bargeIns
        let echoTurnsIgnored = engine.echoTurnsIgnored
        let pausesResumed = engine.pausesResumed
        let muted = engine.microphoneMuted
        let ringing = engine.ringing?.rings.map(\.timer) ?? []
        // The wall clock is read only when the total moved (this runs after every tick).
        let spent = engine.spentUSD
        let today = spent != recordedSpending ? LocalTime.systemNow().calendarDay : nil
        recordedSpending = spent
        runner.snapshot.withLock { status in
            if let today { status.spending.record(total: spent, today: today) }
            status.state = state
            status.realtimeConnected = connected
            status.media = media
            status.toolsRunning = toolsRunning
            status.malformedEvents = malformed
            status.unknownEvents = unknown
            status.bargeIns = bargeIns
            status.echoTurnsIgnored = echoTurnsIgnored
            status.pausesResumed = pausesResumed
            status.microphoneMuted = muted
            status.ringing = ringing
        }
    }

    // MARK: shutdown

    private func shutdown() async {
        if engine.state.isInConversation { logger.info("conversation ended: shutting down") }
        tools.cancelAll()
        timers.cancelAll()
        _ = audio.uplink(.stop, at: runner.clock.now())
        flushVoice()
        audio.releaseMedia()
        runner.hooks.setLED(.off)
        await disconnect()  // a session still closing finishes as a child of the runner's task group
        await tools.drain()
        await timers.drain()
        sayWaiters.failAll("the service is stopping")
        runner.continuation.finish()
        runner.snapshot.withLock { status in
            status.state = .idle
            status.realtimeConnected = false
            status.toolsRunning = 0
            status.media = audio.mediaGain
        }
        logger.info("conversation runner stopped")
    }
}
