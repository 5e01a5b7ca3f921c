/// How the `MediaPlayer` behaves. Documented defaults.
public struct MediaPlayerConfiguration: Sendable {
    /// Where `media-state.json` (volume, podcast positions) and `media-history.jsonl` live.
    /// Default "/var/lib/jarvis-voice" (the unit's StateDirectory). Missing or unwritable: the player
    /// says so once in the log and keeps everything in memory.
    public var stateDir: String
    /// The volume level when the state file has none. Default 0.7 (−12 dB).
    public var defaultVolume: Double
    /// Level 0...1 spans this many dB below full scale. Default 40.
    public var volumeRangeDecibels: Double
    /// Volume steps. Default 2 dB.
    public var volumeStepDecibels: Double
    /// Connecting, buffering, reconnecting (`MediaStreamSettings` defaults).
    public var stream: MediaStreamSettings
    /// Playlists, feeds, the station list (`MediaFetcher` defaults with these limits).
    public var limits: MediaLimits
    /// A podcast resumed after a stop (or a restart) starts this much before where it stopped. Default 3 s.
    public var resumeRewind: Duration
    /// A podcast stopped within this much of its end (at most the last 10 %) counts as finished (its position is forgotten). Default 30 s.
    public var finishedMargin: Duration
    /// History entries kept on disk. Default 500.
    public var historyLimit: Int
    /// Podcast positions kept (least recently used dropped). Default 200.
    public var positionLimit: Int
    /// SomaFM's channel list. Default `SomaFMCatalog.channelsURL`.
    public var stationCatalogURL: String
    /// Refresh the built-in station list from `stationCatalogURL` on first use, at most once per
    /// `catalogRefreshInterval` (failures retry after an hour and fall back to the built-in list). Default true.
    public var refreshStationCatalog: Bool
    /// Default 24 h.
    public var catalogRefreshInterval: Duration
    /// `play`, `station` and `podcast` answer once the item is heard or has failed, or after this long
    /// (still connecting: it goes on trying). Default 10 s, inside `ctl`'s 15 s.
    public var startLimit: Duration = .seconds(10)

    public init(
        stateDir: String = "/var/lib/jarvis-voice",
        defaultVolume: Double = 0.7,
        volumeRangeDecibels: Double = MediaVolume.defaultRangeDecibels,
        volumeStepDecibels: Double = MediaVolume.defaultStepDecibels,
        stream: MediaStreamSettings = MediaStreamSettings(),
        limits: MediaLimits = MediaLimits(),
        resumeRewind: Duration = .seconds(3),
        finishedMargin: Duration = .seconds(30),
        historyLimit: Int = 500,
        positionLimit: Int = 200,
        stationCatalogURL: String = SomaFMCatalog.channelsURL,
        refreshStationCatalog: Bool = true,
        catalogRefreshInterval: Duration = .seconds(24 * 3_600)
    ) {
        self.stateDir = stateDir
        self.defaultVolume = defaultVolume
        self.volumeRangeDecibels = volumeRangeDecibels
        self.volumeStepDecibels = volumeStepDecibels
        self.stream = stream
        self.limits = limits
        self.resumeRewind = resumeRewind
        self.finishedMargin = finishedMargin
        self.historyLimit = historyLimit
        self.positionLimit = positionLimit
        self.stationCatalogURL = stationCatalogURL
        self.refreshStationCatalog = refreshStationCatalog
        self.catalogRefreshInterval = catalogRefreshInterval
    }

    func volume(_ level: Double) -> MediaVolume {
        MediaVolume(level: level, rangeDecibels: volumeRangeDecibels, stepDecibels: volumeStepDecibels)
    }
}
