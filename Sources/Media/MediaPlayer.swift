import AudioCore
import HTTP
import Logging
import ServiceLifecycle
import Synchronization

/// The appliance's media player: one item at a time into the mixer's media channel, a queue, pause and
/// resume (live streams reconnect; podcasts and files continue with HTTP Range), the user volume in dB
/// steps, podcast resume positions and a play history on disk.
///
/// Commands are serialized (one at a time, in call order); URL resolution (playlists, feeds, the
/// station list) happens before a command takes its turn, so a slow server never blocks `stop`.
/// Everything the listener must hear about (an item ended, a stream given up) comes as a
/// `MediaPlayerEvent` through `onEvent`, in order. As a `Service`, `run()` waits for shutdown, then
/// stops the stream and saves positions and history.
public actor MediaPlayer: MediaControlling, Service {
    public nonisolated let configuration: MediaPlayerConfiguration
    let output: any MediaOutput
    let logger: Logger
    let onEvent: @Sendable (MediaPlayerEvent) -> Void
    let fetcher: MediaFetcher
    let client: HTTPClient
    var store: MediaPlayerStore
    var volume: MediaVolume
    var current: Playback?
    var queue: [MediaItem] = []
    var generation = 0
    var catalog: SomaFMCatalog?
    var catalogNextRefresh: ContinuousClock.Instant?
    /// How the latest item's start went, and who waits to hear it (`MediaPlayer+Start`).
    var started: (generation: Int, outcome: StartOutcome)?
    var startWaiters: [Int: [CheckedContinuation<StartOutcome?, Never>]] = [:]
    private var gateBusy = false
    private var gateWaiters: [CheckedContinuation<Void, Never>] = []
    let published: Mutex<PublishedState>

    /// - Parameters:
    ///   - output: the mixer's media channel (`MixerMediaSink`) or any `MediaOutput`.
    ///   - onEvent: called on the player's executor, in order; must return quickly.
    public init(
        configuration: MediaPlayerConfiguration, client: HTTPClient, output: any MediaOutput, logger: Logger,
        onEvent: @escaping @Sendable (MediaPlayerEvent) -> Void
    ) {
        self.configuration = configuration
        self.client = client
        self.output = output
        self.logger = logger
        self.onEvent = onEvent
        var fetcher = MediaFetcher(client: client, limits: configuration.limits)
        fetcher.connectTimeout = configuration.stream.connectTimeout
        self.fetcher = fetcher
        var store = MediaPlayerStore(
            directory: configuration.stateDir, historyLimit: configuration.historyLimit,
            positionLimit: configuration.positionLimit)
        if let problem = store.takeProblem() { logger.warning("\(problem)") }
        let volume = configuration.volume(store.state.volume ?? configuration.defaultVolume)
        self.store = store
        self.volume = volume
        published = Mutex(PublishedState(nowPlaying: MediaNowPlaying(volume: volume.level)))
    }

    /// The current user volume (level and linear gain for the mixer's media channel at start-up).
    public nonisolated var currentVolume: MediaVolume {
        let level = published.withLock { $0.nowPlaying.volume }
        return configuration.volume(level)
    }

    /// What `status` shows, without waiting for the player (positions are computed at the call).
    public nonisolated func nowPlayingSnapshot() -> MediaNowPlaying {
        let state = published.withLock { $0 }
        var now = state.nowPlaying
        if let meter = state.meter { now.positionSeconds += meter.heardSeconds }
        if now.durationSeconds == nil, let progress = state.progress?.current,
            let length = progress.fileLength, let rate = progress.bytesPerSecond, rate > 0
        {
            now.durationSeconds = Double(length) / rate
        }
        return now
    }

    // MARK: Service

    /// Waits for graceful shutdown (or cancellation), then stops streaming and saves state and history.
    public func run() async throws {
        try? await gracefulShutdown()
        await shutDown()
    }

    /// Stops the stream (remembering a podcast's position) and writes the history; no events.
    public func shutDown() async {
        await acquire()
        defer { release() }
        await finishCurrent(.shutdown)
        queue.removeAll()
        publish()
    }

    // MARK: MediaControlling

    /// Answers once the item is heard (or with why it cannot be; `MediaPlayer+Start`).
    public func play(url: String, title: String?, kind: MediaKind?) async throws(MediaCommandError) -> MediaItem {
        try await startAndConfirm(try await resolve(url: url, title: title, kind: kind))
    }

    public func playStation(named name: String) async throws(MediaCommandError) -> MediaItem {
        try await startAndConfirm(try await resolveStation(named: name))
    }

    public func playPodcast(feedURL: String, episode: Int?) async throws(MediaCommandError) -> MediaItem {
        let url = try parse(feedURL)
        return try await startAndConfirm(try await resolvePodcast(feed: url, episode: episode ?? 1))
    }

    /// Replaces the current item with `target` in the command's turn, then, outside it (so `stop` is
    /// never held up), waits until the item is heard or fails.
    private func startAndConfirm(_ target: PlaybackTarget) async throws(MediaCommandError) -> MediaItem {
        await acquire()
        await replace(with: target)
        let started = generation
        release()
        let name = target.item.title ?? "that"
        switch await awaitStart(of: started, limit: configuration.startLimit) {
        case .failed(let reason)?:
            throw MediaCommandError("I couldn't play \(name): \(reason)")
        case nil:
            if let problem = await giveUpStarting(generation: started) { throw MediaCommandError("I couldn't play \(name): \(problem)") }
        case .audible?, .superseded?:
            break
        }
        return target.item
    }

    /// Stops generation `generation` if it is still current and has not been heard: the answer to a
    /// `play` that waited `startLimit` in silence. Nil when it was heard (or replaced) meanwhile.
    private func giveUpStarting(generation: Int) async -> String? {
        await acquire()
        defer { release() }
        guard let playback = current, playback.generation == generation, started?.generation != generation else { return nil }
        let seconds = Int(configuration.startLimit.inSeconds)
        let problem = "nothing could be heard within \(seconds) s" + (playback.lastProblem.map { " (\($0))" } ?? "")
        await fail(playback, reason: problem)
        return problem
    }

    public func pause() async throws(MediaCommandError) {
        await acquire()
        defer { release() }
        guard current?.state == .playing else { throw MediaCommandError("Nothing is playing right now.") }
        await pauseCurrent()
        emit(.playbackChanged(.paused))
    }

    public func resume() async throws(MediaCommandError) -> MediaItem {
        await acquire()
        defer { release() }
        guard let playback = current, playback.state == .paused else { throw MediaCommandError("Nothing is paused right now.") }
        resumeCurrent()
        emit(.playbackChanged(.playing))
        return playback.item
    }

    public func stop() async -> MediaItem? {
        await acquire()
        defer { release() }
        guard let item = current?.item else { return nil }
        await finishCurrent(.stopped)
        emit(.playbackChanged(.stopped))
        return item
    }

    public func skip() async -> MediaItem? {
        await acquire()
        defer { release() }
        let before = current?.state ?? .stopped
        await finishCurrent(.skipped)
        let next = await startNextQueued()
        let after: MediaPlaybackState = next == nil ? .stopped : .playing
        if after != before { emit(.playbackChanged(after)) }
        return next
    }

    public func enqueue(url: String, title: String?) async throws(MediaCommandError) -> Int {
        let parsed = try parse(url)
        let item = MediaItem(url: url, title: title, kind: MediaRequest.guessKind(parsed), show: nil)
        await acquire()
        defer { release() }
        if current == nil {
            let target = try await resolve(url: url, title: title, kind: nil)
            start(target)
            emit(.playbackChanged(.playing))
        } else {
            queue.append(item)
            publish()
        }
        return queue.count
    }

    public func clearQueue() async -> Int {
        await acquire()
        defer { release() }
        let removed = queue.count
        queue.removeAll()
        publish()
        return removed
    }

    public func setVolume(_ level: Double) async -> Double {
        await acquire()
        defer { release() }
        volume = configuration.volume(level)
        store.state.volume = volume.level
        saveState()
        publish()
        logger.info("volume \(volume.level) (\(volume.decibels.map { "\(Int($0.rounded())) dB" } ?? "muted"))")
        emit(.volumeChanged(level: volume.level, gain: volume.gain))
        return volume.level
    }

    public func nowPlaying() async -> MediaNowPlaying {
        nowPlayingSnapshot()
    }

    public func recentHistory(limit: Int) async -> [MediaHistoryEntry] {
        Array(store.history.suffix(max(0, limit)).reversed())
    }

    // MARK: helpers

    /// Commands take turns (FIFO), so a stop can never interleave with a half-started play.
    func acquire() async {
        if gateBusy {
            await withCheckedContinuation { gateWaiters.append($0) }
        } else {
            gateBusy = true
        }
    }

    func release() {
        if gateWaiters.isEmpty {
            gateBusy = false
        } else {
            gateWaiters.removeFirst().resume()
        }
    }

    func emit(_ event: MediaPlayerEvent) {
        onEvent(event)
    }

    func saveState() {
        store.saveState()
        if let problem = store.takeProblem() { logger.warning("\(problem)") }
    }

    func parse(_ text: String) throws(MediaCommandError) -> MediaURL {
        do {
            return try MediaURL(parsing: text, maxLength: configuration.limits.maxURLLength)
        } catch {
            switch error.reason {
            case .scheme(let scheme):
                throw MediaCommandError("I can only play http or https links, not \(scheme): links.")
            case .empty:
                throw MediaCommandError("I need a link to play.")
            default:
                throw MediaCommandError("That link doesn't work: \(error.description).")
            }
        }
    }
}

/// What `nowPlayingSnapshot()` reads without the actor.
struct PublishedState: Sendable {
    var nowPlaying: MediaNowPlaying
    /// Adds the current segment's heard seconds to `nowPlaying.positionSeconds`.
    var meter: PlaybackMeter?
    var progress: MediaStreamProgress?
}
