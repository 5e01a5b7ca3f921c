/// What the model's media tools and the control socket drive; `MediaPlayer` implements it.
/// Every method returns quickly (network resolution of playlists, feeds and station lists included,
/// bounded by the fetch timeouts) and reports failures as messages a listener can be told.
public protocol MediaControlling: Sendable {
    /// Plays `url` now, replacing the current item (the queue is kept). Playlists (PLS/M3U) are
    /// resolved to their first stream; an RSS feed URL plays its latest episode.
    func play(url: String, title: String?, kind: MediaKind?) async throws(MediaCommandError) -> MediaItem
    /// A SomaFM station by id or name ("groove salad", "groovesalad").
    func playStation(named name: String) async throws(MediaCommandError) -> MediaItem
    /// `episode`: 1 is the latest, 2 the one before, ...; nil means the latest. Resumes a remembered position.
    func playPodcast(feedURL: String, episode: Int?) async throws(MediaCommandError) -> MediaItem
    /// Throws when nothing is playing.
    func pause() async throws(MediaCommandError)
    /// Throws when nothing is paused.
    func resume() async throws(MediaCommandError) -> MediaItem
    /// Stops and forgets the current item (the queue is kept). Returns what was stopped, if anything.
    func stop() async -> MediaItem?
    /// Ends the current item and starts the next queued one; nil when the queue was empty (then stopped).
    func skip() async -> MediaItem?
    /// Appends to the queue (starts it at once when nothing plays). Returns the queue length after.
    func enqueue(url: String, title: String?) async throws(MediaCommandError) -> Int
    /// Returns how many items were removed.
    func clearQueue() async -> Int
    /// Sets the user volume (0.0...1.0, quantized to the player's dB steps, persisted). Returns the level applied.
    func setVolume(_ level: Double) async -> Double
    func nowPlaying() async -> MediaNowPlaying
    /// Most recent first.
    func recentHistory(limit: Int) async -> [MediaHistoryEntry]
}

/// The seed's `play_audio` `type`.
public enum MediaKind: String, Sendable, Equatable, CaseIterable, Codable {
    case music, podcast, radio, ambient
}

public enum MediaPlaybackState: String, Sendable, Equatable, Codable {
    case stopped, playing, paused
    /// An item is current but none of its audio reaches the output yet: connecting, filling the
    /// prebuffer, or reconnecting after a drop (published only; the player itself holds `playing`).
    case buffering
}

/// One thing the player plays or has queued.
public struct MediaItem: Sendable, Equatable, Codable {
    /// What was asked for (a stream, a playlist, a feed or an episode's enclosure).
    public var url: String
    public var title: String?
    public var kind: MediaKind
    /// The station or the podcast's name.
    public var show: String?

    public init(url: String, title: String? = nil, kind: MediaKind, show: String? = nil) {
        self.url = url
        self.title = title
        self.kind = kind
        self.show = show
    }
}

public struct MediaNowPlaying: Sendable, Equatable {
    public var state: MediaPlaybackState
    public var item: MediaItem?
    /// The stream's own now-playing text (ICY StreamTitle or Opus tags), newest first seen.
    public var streamTitle: String?
    /// Seconds of the current item heard so far (a resumed podcast starts at its resume point).
    public var positionSeconds: Double
    public var durationSeconds: Double?
    /// The user volume level, 0.0...1.0.
    public var volume: Double
    public var queue: [MediaItem]

    public init(
        state: MediaPlaybackState = .stopped, item: MediaItem? = nil, streamTitle: String? = nil,
        positionSeconds: Double = 0, durationSeconds: Double? = nil, volume: Double, queue: [MediaItem] = []
    ) {
        self.state = state
        self.item = item
        self.streamTitle = streamTitle
        self.positionSeconds = positionSeconds
        self.durationSeconds = durationSeconds
        self.volume = volume
        self.queue = queue
    }

    /// The `title` of `status.media`: what is on air right now (the ICY title), else the item's title.
    public var displayTitle: String? { streamTitle ?? item?.title }
}

/// One line of play history (kept on disk so Jarvis can avoid repeats).
public struct MediaHistoryEntry: Sendable, Equatable, Codable {
    public var item: MediaItem
    /// Unix seconds.
    public var startedAt: Int64
    public var playedSeconds: Double
    /// Stream titles heard while it played (radio), most recent last; bounded.
    public var streamTitles: [String]

    public init(item: MediaItem, startedAt: Int64, playedSeconds: Double, streamTitles: [String] = []) {
        self.item = item
        self.startedAt = startedAt
        self.playedSeconds = playedSeconds
        self.streamTitles = streamTitles
    }
}

/// What the player tells the composition root (and through it the conversation engine), in order.
public enum MediaPlayerEvent: Sendable, Equatable {
    /// Playing/paused/stopped changed (the engine's `mediaChanged(playing:)`).
    case playbackChanged(MediaPlaybackState)
    /// The user volume changed: `level` for status, `gain` (linear) for the mixer's media channel.
    case volumeChanged(level: Double, gain: Float)
    case streamTitleChanged(String)
    /// An item reached its end (not a stop or skip). `next` is the queued item now starting, if any.
    case itemEnded(MediaItem, next: MediaItem?)
    /// A stream failed for good (permanent error, or too many failed reconnects): the listener must be told.
    case gaveUp(MediaItem, reason: String)
}

/// A media request that cannot be carried out, in words the assistant can say.
public struct MediaCommandError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
