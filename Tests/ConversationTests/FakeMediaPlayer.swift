import Media

/// A recording `MediaControlling`: keeps a small player state (item, queue, volume, history) so the tools'
/// outputs can be checked, and fails on demand.
actor FakeMediaPlayer: MediaControlling {
    private(set) var calls: [String] = []
    var state = MediaPlaybackState.stopped
    var item: MediaItem?
    var streamTitle: String?
    var position = 0.0
    var duration: Double?
    var volume = 0.8
    var queue: [MediaItem] = []
    var history: [MediaHistoryEntry] = []
    /// The next command that can fail throws this.
    var failure: MediaCommandError?

    func fail(with message: String) { failure = MediaCommandError(message) }
    func set(streamTitle: String?, position: Double, duration: Double?) {
        self.streamTitle = streamTitle
        self.position = position
        self.duration = duration
    }
    func set(history: [MediaHistoryEntry]) { self.history = history }

    private func check() throws(MediaCommandError) {
        if let failure {
            self.failure = nil
            throw failure
        }
    }

    func play(url: String, title: String?, kind: MediaKind?) async throws(MediaCommandError) -> MediaItem {
        calls.append("play \(url) \(title ?? "-") \(kind?.rawValue ?? "-")")
        try check()
        let started = MediaItem(url: url, title: title, kind: kind ?? .music)
        item = started
        state = .playing
        return started
    }

    func playStation(named name: String) async throws(MediaCommandError) -> MediaItem {
        calls.append("station \(name)")
        try check()
        let started = MediaItem(url: "https://somafm.com/\(name.lowercased().filter { $0 != " " }).pls", title: name, kind: .radio, show: "SomaFM")
        item = started
        state = .playing
        return started
    }

    func playPodcast(feedURL: String, episode: Int?) async throws(MediaCommandError) -> MediaItem {
        calls.append("podcast \(feedURL) \(episode.map(String.init) ?? "latest")")
        try check()
        let started = MediaItem(url: feedURL + "/ep\(episode ?? 1).mp3", title: "Episode \(episode ?? 1)", kind: .podcast, show: "The Show")
        item = started
        state = .playing
        return started
    }

    func pause() async throws(MediaCommandError) {
        calls.append("pause")
        try check()
        guard state == .playing else { throw MediaCommandError("Nothing is playing.") }
        state = .paused
    }

    func resume() async throws(MediaCommandError) -> MediaItem {
        calls.append("resume")
        try check()
        guard state == .paused, let item else { throw MediaCommandError("Nothing is paused.") }
        state = .playing
        return item
    }

    func stop() async -> MediaItem? {
        calls.append("stop")
        defer {
            item = nil
            state = .stopped
        }
        return item
    }

    func skip() async -> MediaItem? {
        calls.append("skip")
        guard !queue.isEmpty else {
            item = nil
            state = .stopped
            return nil
        }
        item = queue.removeFirst()
        state = .playing
        return item
    }

    func enqueue(url: String, title: String?) async throws(MediaCommandError) -> Int {
        calls.append("enqueue \(url) \(title ?? "-")")
        try check()
        queue.append(MediaItem(url: url, title: title, kind: .music))
        return queue.count
    }

    func clearQueue() async -> Int {
        calls.append("clear")
        defer { queue = [] }
        return queue.count
    }

    func setVolume(_ level: Double) async -> Double {
        calls.append("volume \(level)")
        volume = (level * 20).rounded() / 20  // 5 % steps
        return volume
    }

    func nowPlaying() async -> MediaNowPlaying {
        calls.append("now")
        return MediaNowPlaying(
            state: state, item: item, streamTitle: streamTitle, positionSeconds: position, durationSeconds: duration,
            volume: volume, queue: queue)
    }

    func recentHistory(limit: Int) async -> [MediaHistoryEntry] {
        calls.append("history \(limit)")
        return Array(history.prefix(limit))
    }
}
