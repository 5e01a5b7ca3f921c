import Logging
import Realtime

/// The runner's loop state. Lives inside `ConversationRunner.run()` and is touched only by that task;
/// the tasks it starts (connect, link reader, tools, timers, retries) report back through the input stream.
final class RunnerLoop {
    struct OwnedTask {
        var token: Int
        var task: Task<Void, Never>
    }

    let runner: ConversationRunner
    var engine: ConversationEngine
    var configuration: ConversationRunnerConfiguration { runner.configuration }
    var audio: any ConversationAudio { runner.audio }
    var logger: Logger { runner.logger }
    var continuation: AsyncStream<RunnerInput>.Continuation { runner.continuation }

    /// The time handed to the engine with the event being handled (effects use it too).
    var now = EngineTime.zero
    var nextToken = 0

    // Realtime connection
    var wantConnection = false
    /// Bumped on every connect and disconnect; outcomes of older attempts are ignored.
    var generation = 0
    var link: (any RealtimeLink)?
    /// Ends the connect attempt in flight (a child of the runner) when finished.
    var connectAbandon: AsyncStream<Never>.Continuation?
    var retryTask: Task<Void, Never>?
    var connectAttempts = 0
    var lastServerErrorCode: String?

    // Tools and timers
    var toolTasks: [String: OwnedTask] = [:]
    /// Cancelled tool tasks still winding down, by token.
    var cancelledTools: [Int: Task<Void, Never>] = [:]
    var timerTasks: [TimerID: OwnedTask] = [:]

    // Audio
    var voiceScratch: [Int16] = []
    var voiceSamplesSinceFlush = 0
    var lastReportedPlayed = 0
    var nearEndSpeech = false

    /// `say` callers waiting for their announcement, by id.
    var sayWaiters: [Int: CheckedContinuation<SayOutcome, Never>] = [:]

    // Counters for status
    var malformedEvents = 0
    var unknownEvents = 0

    init(runner: ConversationRunner) {
        self.runner = runner
        engine = ConversationEngine(configuration: runner.configuration.engine)
    }

    func run(_ inputs: AsyncStream<RunnerInput>) async {
        logger.info("conversation runner started")
        publishStatus()
        var iterator = inputs.makeAsyncIterator()
        while let input = await iterator.next() {
            if case .shutdown = input { break }
            await handle(input)
            publishStatus()
            runner.idleTicks.store(!engine.state.isInConversation && !audio.isOutputPending, ordering: .relaxed)
        }
        await shutdown()
        // `say` requests posted while the loop stopped are answered, never left waiting.
        while let input = await iterator.next() {
            if case .say(_, _, let reply) = input { reply.resume(returning: .failed("the service is stopping")) }
        }
    }

    func token() -> Int {
        nextToken += 1
        return nextToken
    }

    // MARK: inputs

    private func handle(_ input: RunnerInput) async {
        switch input {
        case .engine(let event):
            await feed(event)
        case .linkOpened(let opened, let newLink):
            await linkOpened(opened, newLink)
        case .connectFailed(let failed, let error):
            guard failed == generation, wantConnection else { return }
            connectAbandon = nil
            await connectionLost(error, wasOpen: false)
        case .link(let from, let event):
            guard from == generation, link != nil else { return }
            await linkEvent(event)
        case .linkEnded(let from, let end):
            guard from == generation, link != nil else { return }
            await linkClosed(end)
        case .retryConnect(let from):
            guard from == generation, wantConnection, link == nil, connectAbandon == nil, engine.state == .connecting else { return }
            retryTask = nil
            startConnect()
        case .toolFinished(let callID, let finished, let output):
            if cancelledTools.removeValue(forKey: finished) != nil { return }
            guard toolTasks[callID]?.token == finished else { return }
            toolTasks[callID] = nil
            applyDuckingRequest()  // before the model answers (duck_audio's own reply is spoken at the new level)
            await feed(.toolFinished(callID: callID, output: output))
        case .timerFired(let id, let fired):
            guard timerTasks[id]?.token == fired else { return }
            timerTasks[id] = nil
            await feed(.timerFired(id))
        case .tick:
            runner.tickQueued.store(false, ordering: .releasing)
            await tick()
        case .mediaVolume(let volume):
            audio.setMediaVolume(volume)
        case .voiceVolume(let level):
            audio.setVoiceVolume(level)
        case .say(let text, let id, let reply):
            sayWaiters[id] = reply
            await feed(.say(text: text, id: id))
        case .sayAbandoned(let id):
            sayWaiters.removeValue(forKey: id)?.resume(returning: .failed("no longer waiting"))
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
        if engine.voice.received == 0, voiceSamplesSinceFlush > 0 { flushVoice() }
        if !after.isInConversation {
            audio.releaseMedia()  // also forgets a duck_audio level
            runner.ducking?.clear()
        }
    }

    private func tick() async {
        audio.pump()
        for frame in audio.pullUplink(at: runner.clock.now()) { await send(frame) }
        if audio.takeSpeechDetected() { await feed(.userSpeechDetected) }
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
        let played = audio.voicePlayedSamples()
        guard played != lastReportedPlayed else { return }
        lastReportedPlayed = played
        await feed(.voicePlayed(samples: played))
    }

    func publishStatus() {
        let state = engine.state
        let connected = link != nil
        let media = audio.mediaGain
        let tools = toolTasks.count
        let malformed = malformedEvents
        let unknown = unknownEvents
        runner.snapshot.withLock { status in
            status.state = state
            status.realtimeConnected = connected
            status.media = media
            status.toolsRunning = tools
            status.malformedEvents = malformed
            status.unknownEvents = unknown
        }
    }

    // MARK: shutdown

    private func shutdown() async {
        if engine.state.isInConversation { logger.info("conversation ended: shutting down") }
        for (_, owned) in toolTasks { owned.task.cancel() }
        for (_, owned) in timerTasks { owned.task.cancel() }
        _ = audio.uplink(.stop, at: runner.clock.now())
        flushVoice()
        audio.releaseMedia()
        runner.hooks.setLED(.off)
        await disconnect()  // a session still closing finishes as a child of the runner's task group
        for (_, owned) in toolTasks { await owned.task.value }
        for (_, task) in cancelledTools { await task.value }
        for (_, owned) in timerTasks { await owned.task.value }
        toolTasks = [:]
        cancelledTools = [:]
        timerTasks = [:]
        for (_, reply) in sayWaiters { reply.resume(returning: .failed("the service is stopping")) }
        sayWaiters = [:]
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
