import TestProcess

/// A live source for an `IcecastServer`: `ffmpeg -re` generates a sine tone (`-f lavfi -i sine=...`),
/// encodes it and pushes it in real time to a mount, as a radio station's encoder does. Stopped by
/// `stop()` or on release.
public final class FFmpegFeed: Sendable {
    /// What the feed sends; every encoder here is in Debian's ffmpeg (`ffmpeg -encoders`).
    public enum Format: String, Sendable, CaseIterable {
        case mp3, oggOpus, oggVorbis, oggFLAC, aacADTS

        /// The encoder and its options, then the muxer (`-f`).
        var encoding: [String] {
            switch self {
            case .mp3: ["-c:a", "libmp3lame", "-b:a", "128k", "-f", "mp3"]
            case .oggOpus: ["-c:a", "libopus", "-b:a", "96k", "-f", "ogg"]
            case .oggVorbis: ["-c:a", "libvorbis", "-q:a", "4", "-f", "ogg"]
            case .oggFLAC: ["-c:a", "flac", "-f", "ogg"]
            case .aacADTS: ["-c:a", "aac", "-b:a", "128k", "-f", "adts"]
            }
        }

        /// The Content-Type Icecast serves it with.
        public var contentType: String {
            switch self {
            case .mp3: "audio/mpeg"
            case .oggOpus, .oggVorbis, .oggFLAC: "audio/ogg"
            case .aacADTS: "audio/aac"
            }
        }

        /// A file name extension for it.
        public var fileExtension: String {
            switch self {
            case .mp3: "mp3"
            case .oggOpus: "opus"
            case .oggVorbis: "ogg"
            case .oggFLAC: "oga"
            case .aacADTS: "aac"
            }
        }

        public var isOgg: Bool { contentType == "audio/ogg" }
    }

    public let format: Format
    public let mount: String
    private let directory: TemporaryDirectory
    private let encoder: ServerProcess

    /// Starts pushing a `frequency` Hz tone (stereo, ffmpeg's sine at -18 dBFS) to `mount` and returns once
    /// Icecast lists the mount. `title` goes into an Ogg stream's comments (Icecast's admin title does
    /// not apply to Ogg mounts; use `IcecastServer.setTitle` for MP3 and AAC).
    public static func start(
        _ format: Format, frequency: Int, sampleRate: Int = 48_000, to icecast: IcecastServer, mount: String,
        title: String? = nil, timeout: Duration = .seconds(10)
    ) async throws -> FFmpegFeed {
        let feed = try FFmpegFeed(format, frequency: frequency, sampleRate: sampleRate, to: icecast, mount: mount, title: title)
        try await icecast.waitForMount(mount, from: feed.encoder, timeout: timeout)
        return feed
    }

    private init(_ format: Format, frequency: Int, sampleRate: Int, to icecast: IcecastServer, mount: String, title: String?) throws {
        self.format = format
        self.mount = mount
        directory = TemporaryDirectory(prefix: "jv-ffmpeg-feed")
        let tags = format.isOgg ? title.map { ["-metadata", "title=\($0)"] } ?? [] : []
        let argv =
            Self.tone(frequency: frequency, sampleRate: sampleRate, realTime: true) + ["-ac", "2"] + format.encoding + tags
            + ["-content_type", format.contentType, icecast.sourceURL(mount)]
        encoder = try ServerProcess(argv, name: "ffmpeg", logsIn: directory, secrets: [icecast.sourcePassword])
    }

    /// `ffmpeg` with a mono sine tone as its first input: endless, or `seconds` long; read at its real-time
    /// pace with `-re`. (The output's options follow: `-ac 2` makes it stereo.)
    static func tone(frequency: Int, sampleRate: Int, seconds: Double? = nil, realTime: Bool = false) -> [String] {
        let duration = seconds.map { ":duration=\($0)" } ?? ""
        return ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "warning"] + (realTime ? ["-re"] : [])
            + ["-f", "lavfi", "-i", "sine=frequency=\(frequency):sample_rate=\(sampleRate)\(duration)"]
    }

    /// What ffmpeg wrote (the source password masked).
    public var log: String { encoder.log }

    /// Ends the feed (Icecast drops the mount and its listeners); returns once ffmpeg has exited.
    public func stop() async { await encoder.stop() }
}
