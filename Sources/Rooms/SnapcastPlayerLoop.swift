import AudioCore
import AudioEngine
import Basics
import Codecs
import Logging
import Snapcast

/// The state of a running `SnapcastPlayer`, owned by its event loop: the session, the connection, the
/// stream's audio and what the journal was last told.
struct SnapcastPlayerLoop {
    let settings: SnapcastPlayerSettings
    let writer: SynchronizedChannelWriter
    let logger: Logger
    let serverVolume: @Sendable (Int) async -> Void
    let announcementPlaying: @Sendable (Bool) -> Void
    /// Puts this client's group on the named stream; nil when done, else why not.
    let joinStream: @Sendable (String) async -> String?
    let sink: AsyncStream<SnapcastPlayer.Event>.Continuation

    private var session: SnapcastSession
    private var audio: SnapcastStreamAudio
    private var generation = 0
    private var connection: Task<Void, Never>?
    private var sends: AsyncStream<[UInt8]>.Continuation?
    private var reconnectAt: Int64?
    private var localMediaPlaying = false
    private var feeding = false
    /// An announcement sounds (or is about to: it arrives a buffer ahead of its time).
    private var announcing = false
    /// The announcement player's group plays the announcement stream (until then its audio is another
    /// stream's and is dropped); when the last try failed, when to try again.
    private var streamJoined: Bool
    private var joinRetryAt: Int64?
    private var joinFailureLogged = false
    /// The box's media volume (0...100) and what the server last had for it: the box's volume is the
    /// truth when a connection starts (the server learns it); the server's changes apply after that.
    private var localVolume: Int
    private var lastServerVolume: Int?
    private var awaitingFirstSettings = false
    /// The journal hears of a lost server once per outage.
    private var outageLogged = false

    init(
        settings: SnapcastPlayerSettings, writer: SynchronizedChannelWriter, logger: Logger,
        localVolume: Int, serverVolume: @escaping @Sendable (Int) async -> Void,
        announcementPlaying: @escaping @Sendable (Bool) -> Void, joinStream: @escaping @Sendable (String) async -> String?,
        sink: AsyncStream<SnapcastPlayer.Event>.Continuation
    ) {
        self.announcementPlaying = announcementPlaying
        self.joinStream = joinStream
        streamJoined = settings.role == .group
        self.localVolume = localVolume
        self.settings = settings
        self.writer = writer
        self.logger = logger
        self.serverVolume = serverVolume
        self.sink = sink
        session = SnapcastSession(configuration: SnapcastSessionConfiguration(hello: settings.hello))
        audio = SnapcastStreamAudio(queueSeconds: settings.queueSeconds)
    }

    mutating func connect(now: Int64) {
        close()
        generation += 1
        let generation = self.generation
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        sends = continuation
        let sink = self.sink, settings = self.settings
        connection = Task {
            do {
                try await SnapcastConnection.run(
                    host: settings.host, port: settings.port, timeout: settings.connectTimeout, sends: stream,
                    connected: { sink.yield(.connected(generation: generation)) },
                    received: { bytes, at in sink.yield(.bytes(generation: generation, bytes, at: at)) })
                sink.yield(.ended(generation: generation, failure: nil))
            } catch {
                sink.yield(.ended(generation: generation, failure: Task.isCancelled ? nil : "\(error)"))
            }
        }
    }

    mutating func close() {
        sends?.finish()
        sends = nil
        connection?.cancel()
        connection = nil
    }

    mutating func handle(_ event: SnapcastPlayer.Event, now: Int64) async {
        switch event {
        case .connected(let g) where g == generation:
            if outageLogged { logger.notice("\(settings.logPrefix)connected to \(settings.server) again") }
            outageLogged = false
            awaitingFirstSettings = true
            if case .announcements = settings.role {
                streamJoined = false
                joinRetryAt = now
            }
            await apply(session.connected(now: now), now: now)
        case .bytes(let g, let bytes, let at) where g == generation:
            await apply(session.received(bytes, now: at), now: now)
        case .ended(let g, let failure) where g == generation:
            let wasConnected = session.state.connected
            stopAudio()
            if !outageLogged {
                outageLogged = true
                let why = failure.map { ": \($0)" } ?? " (the server closed the connection)"
                logger.warning(
                    "\(settings.logPrefix)\(wasConnected ? "lost" : "cannot reach") the snapserver at \(settings.server)\(why); trying again")
            }
            await apply(wasConnected ? session.disconnected(now: now) : session.connectFailed(now: now), now: now)
        case .connected, .bytes, .ended:
            break  // an earlier connection's
        case .tick:
            if let at = reconnectAt, now >= at {
                reconnectAt = nil
                connect(now: now)
            }
            await apply(session.tick(now: now), now: now)
            await joinAnnouncementStream(now: now)
            pump(now: now)
        case .localMedia(let playing):
            localMediaPlaying = playing
        case .localVolume(let volume):
            guard settings.role == .group else { return }
            localVolume = volume
            // The echo of a volume the server just set is not news to it.
            guard volume != lastServerVolume else { return }
            await tellServer(volume: volume, now: now)
        }
    }

    private mutating func apply(_ effects: [SnapcastEffect], now: Int64) async {
        for effect in effects {
            switch effect {
            case .send(let bytes):
                sends?.yield(bytes)
            case .reconnect(let delay):
                close()
                stopAudio()
                reconnectAt = now + delay.nanoseconds
            case .settingsChanged(let new):
                guard settings.role == .group else { continue }
                if awaitingFirstSettings {
                    awaitingFirstSettings = false
                    lastServerVolume = new.volume
                    if new.volume != localVolume { await tellServer(volume: localVolume, now: now) }
                } else if new.volume != lastServerVolume {
                    lastServerVolume = new.volume
                    await serverVolume(new.volume)
                }
            case .codecHeader(let codec, let header):
                do throws(CodecError) {
                    try audio.start(codec: codec, header: header)
                    logger.info("\(settings.logPrefix)the group's stream is \(codec), \(audio.decoder.map { "\($0.format)" } ?? "")")
                } catch {
                    logger.error("\(settings.logPrefix)cannot play the group's stream: \(error)")
                }
            case .chunk(let timestamp, let payload):
                do throws(CodecError) {
                    try audio.add(payload, at: timestamp, now: now, soundThreshold: settings.soundThreshold)
                } catch {
                    logger.error("\(settings.logPrefix)a broken chunk of the group's stream: \(error); waiting for the next stream header")
                    audio.stop()
                }
            case .protocolError(let error):
                logger.warning("\(settings.logPrefix)\(settings.server) broke the protocol (\(error)); reconnecting")
            case .serverError(let code, let message, let details):
                logger.error("\(settings.logPrefix)the snapserver refused this box (\(code) \(message)\(details.isEmpty ? "" : ": \(details)"))")
            }
        }
    }

    /// Puts the announcement player's group on the announcement stream once the server knows the client.
    private mutating func joinAnnouncementStream(now: Int64) async {
        guard case .announcements(let stream) = settings.role, !streamJoined, let at = joinRetryAt, now >= at,
            session.state.settings != nil
        else { return }
        let failure = await joinStream(stream)
        streamJoined = failure == nil
        joinRetryAt = streamJoined ? nil : now + 10_000_000_000
        if let failure {
            if !joinFailureLogged {
                logger.error(
                    "\(settings.logPrefix)cannot play the snapserver's stream \"\(stream)\" (\(failure)); announcements to every room are not heard on this box until it can"
                )
            }
            joinFailureLogged = true
        } else {
            joinFailureLogged = false
            logger.info("\(settings.logPrefix)playing the snapserver's stream \"\(stream)\"")
        }
    }

    private mutating func tellServer(volume: Int, now: Int64) async {
        lastServerVolume = volume
        let muted = session.state.settings?.muted ?? false
        await apply(session.localVolumeChanged(volume: volume, muted: muted, now: now), now: now)
    }

    /// Tops the mixer up when the group's audio is to be heard; otherwise lets it run out.
    private mutating func pump(now: Int64) {
        let state = session.state
        let idle = audio.lastAudioAt.map { now - $0 > settings.idleAfter.nanoseconds } ?? true
        let yields = settings.role == .group && localMediaPlaying
        guard streamJoined, state.synced, let offset = state.offsetNanoseconds, let server = state.settings, !server.muted, !yields, !idle,
            audio.queue != nil
        else {
            audio.discardQueued()
            stopFeeding()
            setAnnouncing(false)
            return
        }
        feeding = true
        let buffer = Int64(server.bufferMs - server.latency) * 1_000_000
        writer.pump(&audio.queue!, playOffsetNanoseconds: buffer - offset)
        if case .announcements = settings.role {
            // Sound arrives a buffer before it is heard: media ducks from its arrival until it has played.
            let holding = Int64(server.bufferMs + 500) * 1_000_000
            setAnnouncing(audio.lastSoundAt.map { now - $0 < holding } ?? false)
        }
    }

    private mutating func setAnnouncing(_ sounding: Bool) {
        guard sounding != announcing else { return }
        announcing = sounding
        announcementPlaying(sounding)
    }

    private mutating func stopFeeding() {
        guard feeding else { return }
        feeding = false
        writer.end()
    }

    private mutating func stopAudio() {
        audio.stop()
        stopFeeding()
        setAnnouncing(false)
    }

    var status: SnapcastPlayerStatus {
        let state = session.state
        var status = SnapcastPlayerStatus()
        status.connected = state.connected
        status.synced = state.synced
        status.codec = state.codec
        status.playing = feeding
        status.volume = lastServerVolume ?? localVolume
        status.serverMuted = state.settings?.muted ?? false
        status.bufferMs = state.settings?.bufferMs ?? status.bufferMs
        status.syncErrorNanoseconds = writer.timing.errorNanoseconds
        status.clockSpreadMicroseconds = state.spreadMicroseconds ?? 0
        return status
    }
}
