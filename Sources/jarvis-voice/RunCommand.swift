import ArgumentParser
import AudioCore
import AudioEngine
import Basics
import Configuration
import Control
import Conversation
import GPIO
import Glibc
import HTTP
import Jarvis
import Logging
import Media
import Realtime
import Rooms
import ServiceLifecycle
import Systemd

/// `jarvis-voice run --config PATH`: the service (the composition root).
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the voice appliance service (logs to stderr with journald priority prefixes).",
        discussion: """
            Validates the configuration before touching any device (exit 78 on problems). SIGTERM/SIGINT \
            shut down cleanly; SIGHUP re-reads the file and applies [log] level, [media] dj and \
            [media] radio_mode and [media] loudness_target at once, logging every other changed key as needing a restart (a bad \
            file keeps the running configuration).
            """
    )

    @OptionGroup var options: ConfigOption

    func run() async throws {
        let config = try options.loadValidatedConfig()
        let secrets = try options.loadSecrets(config)
        let logLevel = ReloadableLogLevel(config.log.level)
        logLevel.bootstrap()
        let logger = Logger(label: "jarvis-voice")
        logger.notice("starting with \(options.config)")
        logModelAdvice(config.realtime.model, logger: logger)

        let pipeline: AudioPipeline
        let runner: ConversationRunner
        let player: MediaPlayer
        let voiceVolume = VoiceVolumeStore(stateDirectory: config.media.stateDir) { logger.warning("\($0)") }
        let microphone = MicrophoneMuteStore(stateDirectory: config.media.stateDir) { logger.warning("\($0)") }
        let timerLogger = Logger(label: "timers")
        let timers = KitchenTimers(stateDirectory: config.media.stateDir, clocks: .system(monotonic: RunnerClock.continuous.now)) {
            timerLogger.warning("\($0)")
        }
        do {
            pipeline = try AudioPipeline(configuration: AudioPipelineConfiguration(config), logger: Logger(label: "audio"))
        } catch {
            logger.critical("cannot set up audio: \(error)")
            throw ExitCode.failure
        }
        let (mediaEvents, mediaEventSink) = AsyncStream.makeStream(of: MediaPlayerEvent.self)
        let mediaSettings = MediaSettings(config.media)
        do {
            // Leveled before the mixer, so the volume and ducking apply on top of the leveled media.
            let output = LevelingMediaOutput(
                output: MixerMediaSink(mixer: pipeline.mixer), target: mediaSettings.loudnessTarget,
                outputChannels: pipeline.mixer.format.channels)
            player = MediaPlayer(
                configuration: MediaPlayerConfiguration(config.media), client: try HTTPClient(),
                output: output, logger: Logger(label: "media"),
                onEvent: { mediaEventSink.yield($0) })
        } catch {
            logger.critical("cannot set up the media player: \(error)")
            throw ExitCode.failure
        }
        let snapcast = SnapcastPlayerSettings(config.snapcast, hostName: Self.hostName()).map { settings in
            SnapcastPlayer(
                settings: settings,
                writer: SynchronizedChannelWriter(mixer: pipeline.mixer, channel: .rooms, leveling: mediaSettings.loudnessTarget),
                mediaVolume: player.currentVolume.level, logger: Logger(label: "snapcast")
            ) { volume in _ = await player.setVolume(Double(volume) / 100) }
        }
        let notify = SDNotify()
        let supervisor = SystemdSupervisor(
            notify: notify, pipeline: pipeline, controlSocket: config.control.socket,
            logger: Logger(label: "service"))
        do {
            runner = try makeRunner(
                config, secrets: secrets, pipeline: pipeline, player: player, microphone: microphone, timers: timers,
                rooms: snapcast.map(SnapcastRoomStreams.init), loudnessTarget: mediaSettings.loudnessTarget
            ) { state in
                // Between conversations the audio loops batch their periods (fewer wakeups).
                pipeline.conversationActive = state.isInConversation
                supervisor.status(state.rawValue)
            }
            runner.setVoiceVolume(Float(voiceVolume.current))
        } catch {
            logger.critical("cannot set up the conversation: \(error)")
            throw ExitCode.failure
        }

        // Bound before the devices open, so a second instance fails without disturbing the first.
        let control: ControlServer
        do {
            control = try await ControlServer.bind(
                path: config.control.socket,
                handler: ApplianceControlHandler(
                    runner: runner, media: player, voiceVolume: voiceVolume, pipeline: pipeline, timers: timers,
                    snapcast: snapcast, announcer: announcer(config, secrets: secrets, group: snapcast)),
                logger: Logger(label: "control"))
        } catch {
            logger.critical("\(error)")
            throw ExitCode.failure
        }

        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: pipeline, serviceName: "audio"),
            .init(service: control, serviceName: "control"),
            .init(service: player, serviceName: "media"),
            .init(service: runner, serviceName: "conversation"),
            .init(
                service: KitchenTimerScheduler(
                    timers: timers,
                    outputLatency: {
                        // What is queued for the speaker plays before a sound queued now, plus the runner's next tick.
                        let status = pipeline.playbackLoop.status, rate = pipeline.configuration.playbackFormat.sampleRate
                        return .milliseconds(Int64(status.delayFrames) * 1000 / Int64(max(1, rate)) + 20)
                    }
                ) { runner.timersRang($0) }, serviceName: "timers"),
            .init(
                service: MediaEventForwarder(events: mediaEvents, runner: runner, settings: mediaSettings, snapcast: snapcast),
                serviceName: "media-events")
        ]
        if let snapcast {
            logger.notice("snapcast: playing the group of \(snapcast.settings.server) as \"\(snapcast.settings.hello.hostName)\"")
            services.append(.init(service: snapcast, serviceName: "snapcast"))
        }
        if let snapcast, !config.snapcast.announceStream.isEmpty {
            let announcements = SnapcastPlayer(
                settings: snapcast.settings.announcements(stream: config.snapcast.announceStream),
                writer: SynchronizedChannelWriter(mixer: pipeline.mixer, channel: .announcement, leveling: mediaSettings.loudnessTarget),
                mediaVolume: 1, logger: Logger(label: "snapcast"),
                announcementPlaying: { runner.setAnnouncementPlaying($0) })
            services.append(.init(service: announcements, serviceName: "snapcast-announcements"))
        }
        if let button = openButton(config.button, logger: logger, onPress: { pipeline.talkButtonPressed() }) {
            services.append(
                .init(
                    service: ButtonService(
                        source: button, runner: runner, holdThreshold: .milliseconds(config.button.holdMs),
                        logger: Logger(label: "button")),
                    successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore, serviceName: "button"))
        }
        services.append(
            .init(
                service: ConfigReloader(
                    path: options.config, running: config, logLevel: logLevel, media: mediaSettings, notify: notify,
                    logger: Logger(label: "config")),
                serviceName: "reload"))
        // Last, so it is the first to hear about the shutdown (STOPPING=1).
        services.append(.init(service: supervisor, serviceName: "systemd"))

        var groupConfiguration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], cancellationSignals: [],
            logger: Logger(label: "lifecycle"))
        groupConfiguration.maximumGracefulShutdownDuration = .milliseconds(1500)
        groupConfiguration.maximumCancellationDuration = .milliseconds(300)
        do {
            try await ServiceGroup(configuration: groupConfiguration).run()
        } catch {
            logger.critical("stopped: \(error)")
            throw ExitCode.failure
        }
        logger.notice("stopped")
    }

    /// `say --rooms all`: nil without a group or an announcement stream.
    private func announcer(
        _ config: JarvisVoiceConfig, secrets: (openAIKey: Secret, jarvisToken: Secret?), group: SnapcastPlayer?
    ) -> RoomAnnouncer? {
        guard let group, !config.snapcast.announceStream.isEmpty else { return nil }
        let voice = AnnouncementVoice(config, openAIKey: secrets.openAIKey)
        return RoomAnnouncer(
            host: group.settings.host, port: config.snapcast.announcePort, stream: config.snapcast.announceStream,
            speak: { text in (try await voice.speak(text), 24_000) }, bufferMilliseconds: { group.status.bufferMs })
    }

    /// The machine's name, the default name of this box in a Snapcast group.
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "jarvis-voice" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "jarvis-voice" : name
    }

    private func makeRunner(
        _ config: JarvisVoiceConfig, secrets: (openAIKey: Secret, jarvisToken: Secret?),
        pipeline: AudioPipeline, player: MediaPlayer, microphone: MicrophoneMuteStore, timers: KitchenTimers,
        rooms: (any RoomStreamSwitching)?, loudnessTarget: LoudnessTarget, stateChanged: @escaping @Sendable (ConversationState) -> Void
    ) throws -> ConversationRunner {
        let jarvis = JarvisClient(
            settings: JarvisSettings(config.jarvis), token: secrets.jarvisToken?.unredacted ?? "", http: try HTTPClient(),
            logger: Logger(label: "jarvis"))
        let ducking = MediaDuckingControl()
        var tools = ToolRegistry([AskJarvisTool(jarvis: jarvis)])
        for tool in MediaTools.make(player: player, ducking: ducking) { tools.register(tool) }
        tools.register(WhatTimeIsItTool())
        tools.register(SetTimerTool(timers: timers))
        tools.register(SetAlarmTool(timers: timers))
        tools.register(ListTimersTool(timers: timers))
        tools.register(CancelTimerTool(timers: timers))
        if let rooms { tools.register(PlayRoomStreamTool(rooms: rooms)) }

        let playbackFormat = pipeline.configuration.playbackFormat
        let rendered = Earcons(format: playbackFormat)
        let playbackStatus = pipeline.playbackLoop.status
        let captureStatistics = pipeline.captureStatistics
        let audio = try MixerConversationAudio(
            mixer: pipeline.mixer, captureRing: pipeline.uplink,
            configuration: .init(
                earconFormat: playbackFormat,
                ducker: Ducker.Configuration(config.media), loudnessTarget: loudnessTarget),
            earcons: { rendered[$0] },
            deviceDelayFrames: { playbackStatus.delayFrames },
            nearEndSpeech: { captureStatistics.nearEndSpeech },
            possibleNearEndSpeech: { captureStatistics.possibleNearEndSpeech },
            nearEndPause: { armed in pipeline.nearEndPauseReflex.isArmed = armed },
            uplinkActivity: { active in pipeline.uplinkActive = active })

        let transport = WebSocketRealtimeTransport(
            configuration: RealtimeConnectionConfiguration(config.realtime, openAIKey: secrets.openAIKey))

        var engine = ConversationConfiguration(config)
        engine.use(tools)
        let led = openLED(config.led)
        let runner = ConversationRunner(
            configuration: ConversationRunnerConfiguration(
                engine: engine, logTranscripts: config.realtime.logTranscripts, startsMuted: microphone.muted),
            transport: transport, audio: audio, tools: tools, jarvis: jarvis,
            hooks: ConversationHooks(
                setLED: { pattern in led?.show(pattern) },
                stopMedia: { _ = await player.stop() },
                stateChanged: stateChanged,
                microphoneMuteChanged: { muted in
                    do throws(MediaStateFiles.Failure) {
                        try microphone.set(muted: muted)
                    } catch {
                        Logger(label: "conversation").warning(
                            "the microphone is \(muted ? "off" : "on") but this will not survive a restart: \(error)")
                    }
                }),
            ducking: ducking, logger: Logger(label: "conversation"))
        runner.setMediaVolume(player.currentVolume.gain)
        return runner
    }

    /// Once at start: a model that shuts down within 30 days is a warning, one already shut down an error
    /// (the service still runs: radio, timers and the control socket work without it).
    private func logModelAdvice(_ model: String, logger: Logger) {
        let today = CalendarDay.today()
        guard let advice = RealtimeModels.advice(for: model, on: today) else { return }
        switch advice.severity {
        case .error: logger.error("\(advice.text)")
        case .warning:
            let soon = RealtimeModels.named(model)?.shutdown.map { today.days(until: $0) <= 30 } ?? false
            if soon { logger.warning("\(advice.text)") } else { logger.notice("\(advice.text)") }
        case .note: logger.notice("\(advice.text)")
        }
    }

    /// The button, or nil (disabled, or the GPIO line cannot be opened: the control socket still works).
    /// `onPress`: the button went down (on its thread; must not block).
    private func openButton(
        _ config: ButtonConfig, logger: Logger, onPress: @escaping @Sendable () -> Void
    ) -> ButtonGestureSource? {
        guard config.enabled else {
            logger.info("button disabled ([button] enabled = false): control socket only")
            return nil
        }
        do {
            return try ButtonGestureSource(
                line: ButtonLineSettings(config), gestures: GestureRecognizer.Settings(config), onPress: onPress)
        } catch {
            logger.error("button unavailable, continuing with the control socket only: \(error.plainDescription)")
            logger.debug("\(error)")
            return nil
        }
    }

    private func openLED(_ config: LEDConfig) -> LEDDriver? {
        let logger = Logger(label: "led")
        guard let settings = LEDLineSettings(config) else { return nil }
        do {
            return try LEDDriver.open(settings, onError: { logger.warning("\($0.plainDescription)") })
        } catch {
            logger.error("LED unavailable: \(error.plainDescription)")
            logger.debug("\(error)")
            return nil
        }
    }
}
