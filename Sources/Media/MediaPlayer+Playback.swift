import Basics
import FoundationEssentials
import Glibc

/// The item being played or paused.
struct Playback {
    var item: MediaItem
    var stream: MediaURL
    var isHLS = false
    var state: MediaPlaybackState
    var generation: Int
    /// Unix seconds when it started.
    var startedAt: Int64
    /// Position at the start of the current segment (a resume point, or where a pause left it).
    var segmentStart: Double
    /// Seconds heard in earlier segments (for the history).
    var heardBefore = 0.0
    var durationSeconds: Double?
    var fileLength: Int?
    var bytesPerSecond: Double?
    /// The Range start of the current segment (0 = from the beginning).
    var segmentOffset = 0
    var streamTitle: String?
    var streamTitles: [String] = []
    var meter: PlaybackMeter?
    var progress: MediaStreamProgress?
    /// The current segment's decoded audio reaches the output (false while connecting or reconnecting).
    var audible = false
    /// Why the stream last dropped or failed to connect, for a `play` that times out.
    var lastProblem: String?
    var task: Task<Void, Never>?

    var isPodcast: Bool { item.kind == .podcast }

    /// Seconds into the item the listener is now.
    var position: Double {
        segmentStart + (meter?.heardSeconds ?? 0)
    }
}

/// Something resolved and ready to stream.
struct PlaybackTarget: Sendable {
    var item: MediaItem
    var stream: MediaURL
    var isHLS = false
    var durationSeconds: Double?
    var fileLength: Int?
}

enum FinishReason {
    case ended, failed, stopped, skipped, replaced, shutdown
}

extension MediaPlayer {
    /// Replaces the current item with `target` (the queue is kept).
    func replace(with target: PlaybackTarget) async {
        let wasPlaying = current?.state == .playing
        await finishCurrent(.replaced)
        start(target)
        if !wasPlaying { emit(.playbackChanged(.playing)) }
    }

    /// Starts `target` (nothing is current), at its remembered position for a podcast.
    func start(_ target: PlaybackTarget) {
        generation += 1
        var playback = Playback(
            item: target.item, stream: target.stream, state: .playing, generation: generation,
            startedAt: Int64(time(nil)), segmentStart: 0, durationSeconds: target.durationSeconds,
            fileLength: target.fileLength)
        playback.isHLS = target.isHLS
        var offset = 0
        if playback.isPodcast, let saved = store.state.positions[target.item.url] {
            playback.bytesPerSecond = saved.bytesPerSecond
            if playback.durationSeconds == nil { playback.durationSeconds = saved.durationSeconds }
            let resumeAt = max(0, saved.seconds - configuration.resumeRewind.inSeconds)
            let rate = saved.bytesPerSecond ?? estimatedBytesPerSecond(playback)
            if resumeAt > 0, let rate, rate > 0 {
                playback.segmentStart = resumeAt
                offset = Int(resumeAt * rate)
            }
        }
        current = playback
        launchSegment(offset: offset)
        let resumed = offset > 0 ? " at \(Int(playback.segmentStart)) s" : ""
        logger.info("playing \(describe(playback.item))\(resumed) from \(playback.stream)")
        publish()
    }

    /// Starts streaming the current item from `offset` bytes.
    func launchSegment(offset: Int) {
        guard var playback = current else { return }
        let meter = PlaybackMeter(output: output)
        let progress = MediaStreamProgress()
        let source: any MediaSource
        if playback.isHLS {
            var hls = HLSStreamSource(url: playback.stream, fetcher: fetcher, settings: configuration.stream)
            hls.progress = progress
            source = hls
        } else {
            var progressive = MediaStreamSource(url: playback.stream, client: client, settings: configuration.stream)
            progressive.startOffset = offset
            progressive.progress = progress
            source = progressive
        }
        let generation = playback.generation
        playback.segmentOffset = offset
        playback.audible = false
        playback.meter = meter
        playback.progress = progress
        playback.task = Task { await self.pump(source: source, sink: meter, generation: generation) }
        current = playback
    }

    /// Runs one segment's stream and feeds its events, in order, to `handle`.
    private func pump(source: any MediaSource, sink: PlaybackMeter, generation: Int) async {
        let (events, continuation) = AsyncStream.makeStream(of: MediaStreamEvent.self)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await source.run(into: sink) { continuation.yield($0) }
                continuation.finish()
            }
            for await event in events { handle(event, generation: generation) }
        }
    }

    private func handle(_ event: MediaStreamEvent, generation: Int) {
        guard var playback = current, playback.generation == generation else { return }
        switch event {
        case .title(let title):
            playback.streamTitle = title
            if playback.streamTitles.last != title {
                playback.streamTitles.append(title)
                if playback.streamTitles.count > 20 { playback.streamTitles.removeFirst() }
            }
            current = playback
            publish()
            emit(.streamTitleChanged(title))
        case .reconnecting(let attempt, let delay, let reason):
            playback.audible = false
            playback.lastProblem = reason
            current = playback
            publish()
            let tenths = (delay.wholeMilliseconds + 50) / 100
            logger.notice("\(describe(playback.item)) dropped: \(reason); reconnecting in \(tenths / 10).\(tenths % 10) s (attempt \(attempt))")
        case .ended:
            resolveStart(of: generation, .audible)
            Task { await self.itemReachedEnd(generation: generation) }
        case .failed(let reason):
            Task { await self.itemFailed(generation: generation, reason: reason) }
        case .startOffsetRefused:
            Task { await self.restartFromTheBeginning(generation: generation) }
        case .playing:
            playback.audible = true
            current = playback
            publish()
            resolveStart(of: generation, .audible)
        case .connected, .format:
            break
        }
    }

    private func itemReachedEnd(generation: Int) async {
        await acquire()
        defer { release() }
        guard let ended = current, ended.generation == generation else { return }
        await finishCurrent(.ended)
        let next = await startNextQueued()
        emit(.itemEnded(ended.item, next: next))
        if next == nil { emit(.playbackChanged(.stopped)) }
    }

    private func itemFailed(generation: Int, reason: String) async {
        await acquire()
        defer { release() }
        guard let failed = current, failed.generation == generation else { return }
        await fail(failed, reason: reason)
    }

    /// The server refused the remembered position (the file changed since): the item starts again from
    /// its beginning.
    private func restartFromTheBeginning(generation: Int) async {
        await acquire()
        defer { release() }
        guard var playback = current, playback.generation == generation else { return }
        logger.info("\(describe(playback.item)) cannot resume at byte \(playback.segmentOffset); playing it from the start")
        store.state.positions[playback.item.url] = nil
        saveState()
        playback.segmentStart = 0
        current = playback
        launchSegment(offset: 0)
        publish()
    }

    /// Stops `playback` (the current item) as failed and tells the journal, the engine and a waiting `play`
    /// why; the player is already stopped when `play` answers.
    func fail(_ playback: Playback, reason: String) async {
        logger.info("gave up on \(describe(playback.item)): \(reason)")
        await finishCurrent(.failed)
        emit(.gaveUp(playback.item, reason: reason))
        emit(.playbackChanged(.stopped))
        resolveStart(of: playback.generation, .failed(reason))
    }

    /// Starts the first queued item that resolves; items that do not are reported (`gaveUp`) and dropped.
    func startNextQueued() async -> MediaItem? {
        while !queue.isEmpty {
            let item = queue.removeFirst()
            publish()
            do {
                var target = try await resolve(url: item.url, title: item.title, kind: item.kind)
                if target.item.title == nil { target.item.title = item.title }
                start(target)
                return target.item
            } catch {
                logger.info("skipping queued \(describe(item)): \(error.message)")
                emit(.gaveUp(item, reason: error.message))
            }
        }
        return nil
    }

    /// Stops the stream (a natural end lets the queued audio play out; anything else flushes it),
    /// records the history entry and a podcast's position, and forgets the current item.
    func finishCurrent(_ reason: FinishReason) async {
        guard var playback = current else { return }
        if reason != .failed { resolveStart(of: playback.generation, .superseded) }
        let wasPlaying = playback.state == .playing
        let position: Double
        if wasPlaying {
            position =
                reason == .ended
                ? playback.segmentStart + (playback.meter?.acceptedSeconds ?? 0)
                : playback.position
        } else {
            position = playback.segmentStart
        }
        playback.task?.cancel()
        await playback.task?.value
        if reason != .ended && reason != .failed && wasPlaying { output.flush() }
        updateRate(&playback)
        let heard = playback.heardBefore + (wasPlaying ? max(0, position - playback.segmentStart) : 0)
        store.record(
            MediaHistoryEntry(
                item: playback.item, startedAt: playback.startedAt,
                playedSeconds: (heard * 10).rounded() / 10, streamTitles: playback.streamTitles))
        if let problem = store.takeProblem() { logger.warning("\(problem)") }
        if playback.isPodcast { rememberPosition(of: playback, at: position, finished: reason == .ended) }
        let verb =
            switch reason {
            case .ended: "finished"
            case .failed: "failed"
            case .stopped, .shutdown: "stopped"
            case .skipped: "skipped"
            case .replaced: "replaced"
            }
        logger.info("\(verb) \(describe(playback.item)) after \(Int(heard)) s (\(playback.stream))")
        current = nil
        publish()
    }

    /// Pauses: a live stream disconnects; a file remembers where it is (resume uses Range).
    func pauseCurrent() async {
        guard var playback = current, playback.state == .playing else { return }
        let position = playback.position
        playback.task?.cancel()
        await playback.task?.value
        output.flush()
        updateRate(&playback)
        playback.heardBefore += max(0, position - playback.segmentStart)
        playback.segmentStart = position
        playback.state = .paused
        playback.meter = nil
        playback.progress = nil
        playback.task = nil
        current = playback
        if playback.isPodcast { rememberPosition(of: playback, at: position, finished: false) }
        logger.info("paused \(describe(playback.item)) at \(Int(position)) s")
        publish()
    }

    func resumeCurrent() {
        guard var playback = current, playback.state == .paused else { return }
        var offset = 0
        if playback.fileLength != nil, let rate = playback.bytesPerSecond ?? estimatedBytesPerSecond(playback) {
            offset = Int(playback.segmentStart * rate)
        } else {
            // A live stream starts again from "now"; its position keeps counting from where it paused.
        }
        playback.state = .playing
        current = playback
        launchSegment(offset: offset)
        logger.info("resumed \(describe(playback.item))\(offset > 0 ? " at \(Int(playback.segmentStart)) s" : "")")
        publish()
    }

    /// Takes the file length and the observed bytes per second from the segment's progress.
    private func updateRate(_ playback: inout Playback) {
        guard let values = playback.progress?.current else { return }
        if let length = values.fileLength { playback.fileLength = length }
        if values.fileLength != nil, let observed = values.bytesPerSecond, values.decodedSeconds >= 2 || playback.bytesPerSecond == nil {
            playback.bytesPerSecond = observed
        }
        if playback.durationSeconds == nil, let length = playback.fileLength, let rate = playback.bytesPerSecond, rate > 0 {
            playback.durationSeconds = Double(length) / rate
        }
    }

    func estimatedBytesPerSecond(_ playback: Playback) -> Double? {
        guard let length = playback.fileLength, let duration = playback.durationSeconds, duration > 0 else { return nil }
        return Double(length) / duration
    }

    private func rememberPosition(of playback: Playback, at position: Double, finished: Bool) {
        let key = playback.item.url
        let nearEnd = playback.durationSeconds.map { position >= $0 - min(configuration.finishedMargin.inSeconds, $0 * 0.1) } ?? false
        if finished || nearEnd || position < 1 {
            guard store.state.positions[key] != nil else { return }
            store.state.positions[key] = nil
        } else {
            store.setPosition(
                PodcastPosition(
                    seconds: (position * 10).rounded() / 10,
                    bytesPerSecond: playback.bytesPerSecond ?? estimatedBytesPerSecond(playback),
                    durationSeconds: playback.durationSeconds, updatedAt: Int64(time(nil))), for: key)
        }
        saveState()
    }

    /// Publishes what `nowPlayingSnapshot()` reads.
    func publish() {
        let playback = current
        let state = playback.map { $0.state == .playing && !$0.audible ? .buffering : $0.state } ?? .stopped
        let now = MediaNowPlaying(
            state: state, item: playback?.item, streamTitle: playback?.streamTitle,
            positionSeconds: playback?.segmentStart ?? 0, durationSeconds: playback?.durationSeconds,
            volume: volume.level, queue: queue)
        let meter = playback?.state == .playing ? playback?.meter : nil
        published.withLock { $0 = PublishedState(nowPlaying: now, meter: meter, progress: playback?.progress) }
    }

    /// `"Title" (Show)` for logs; no URL.
    func describe(_ item: MediaItem) -> String {
        let title = item.title.map { "\"\($0)\"" } ?? "an untitled \(item.kind.rawValue) item"
        return item.show.map { "\(title) (\($0))" } ?? title
    }
}
