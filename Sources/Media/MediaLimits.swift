/// Limits that keep a hostile or broken server from exhausting the appliance. Documented defaults.
public struct MediaLimits: Sendable, Equatable {
    /// Redirects followed for a playlist, feed or stream. Default 5.
    public var maxRedirects = 5
    /// A playlist (PLS/M3U) body. Default 64 KiB.
    public var maxPlaylistBytes = 64 * 1_024
    /// An HLS playlist (an on-demand one lists every segment). Default 1 MiB.
    public var maxHLSPlaylistBytes = 1 << 20
    /// One HLS segment. Default 16 MiB (a 10 s segment at 320 kbit/s is 400 KB).
    public var maxHLSSegmentBytes = 16 << 20
    /// A podcast feed. Default 8 MiB (long-running shows have big feeds).
    public var maxFeedBytes = 8 * 1_024 * 1_024
    /// SomaFM's channels.json. Default 1 MiB.
    public var maxCatalogBytes = 1 << 20
    /// One ICY metadata block (the protocol's own ceiling is 255 × 16 = 4080).
    public var maxMetadataBytes = 4_080
    /// `icy-metaint` values outside 1...this are refused (the stream is then played without titles).
    public var maxMetaInterval = 1 << 20
    /// Characters kept of a now-playing title.
    public var maxTitleCharacters = 300
    /// URL length. Default 2048.
    public var maxURLLength = 2_048

    public init() {}
}
