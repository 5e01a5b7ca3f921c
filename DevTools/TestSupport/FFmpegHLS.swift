import TestProcess

/// A live HLS stream written by `ffmpeg -re` into a directory a file server (`NginxServer`) serves: a sine
/// tone in AAC, 1 s segments, the playlist keeping the last 6 and older segments deleted, as a live radio's
/// HLS does. Optionally timed ID3 titles in the segments. Stopped by `stop()` or on release.
public final class FFmpegHLS: Sendable {
    public enum Layout: String, Sendable, CaseIterable {
        /// One variant in MPEG-TS segments: `live.m3u8`.
        case mpegTS
        /// `master.m3u8` naming two MPEG-TS variants of different bandwidth (64 and 128 kbit/s):
        /// `v0/index.m3u8` and `v1/index.m3u8`.
        case master
        /// One variant in fragmented MP4 segments (`init.mp4`, `.m4s`): `live.m3u8`.
        case fmp4

        /// The playlist a player opens, relative to the directory.
        public var playlist: String { self == .master ? "master.m3u8" : "live.m3u8" }

        /// The media playlists, relative to the directory.
        var mediaPlaylists: [String] { self == .master ? ["v0/index.m3u8", "v1/index.m3u8"] : ["live.m3u8"] }
    }

    public let layout: Layout
    private let directory: TemporaryDirectory
    private let encoder: ServerProcess

    /// Starts writing into `directory` and returns once every media playlist lists 3 segments (a player
    /// starts 3 segments from the live end). `titles`: timed ID3 titles, `titles[i]` at `i * titleInterval`
    /// from the stream's start, in `.mpegTS` only: ffmpeg 5.1 cannot put a data stream into a variant of a
    /// master playlist (`-var_stream_map` takes audio, video and subtitles) nor timed ID3 into MP4.
    public static func start(
        _ layout: Layout, frequency: Int, sampleRate: Int = 48_000, into directory: String, titles: [String] = [],
        titleInterval: Duration = .seconds(2), timeout: Duration = .seconds(15)
    ) async throws -> FFmpegHLS {
        guard titles.isEmpty || layout == .mpegTS else {
            throw ServerProcessError(description: "timed ID3 titles are written into the .mpegTS layout only, not .\(layout)")
        }
        let hls = try FFmpegHLS(
            layout, frequency: frequency, sampleRate: sampleRate, into: directory, titles: titles, titleInterval: titleInterval)
        try await hls.encoder.waitForIt(to: "list 3 segments in \(layout.mediaPlaylists.joined(separator: ", "))", within: timeout) {
            layout.mediaPlaylists.allSatisfy { playlist in
                (TestFiles.readText(directory + "/" + playlist) ?? "").split(separator: "#EXTINF:").count > 3
            }
        }
        return hls
    }

    private init(_ layout: Layout, frequency: Int, sampleRate: Int, into output: String, titles: [String], titleInterval: Duration) throws {
        self.layout = layout
        directory = TemporaryDirectory(prefix: "jv-ffmpeg-hls")
        var argv = FFmpegFeed.tone(frequency: frequency, sampleRate: sampleRate, realTime: true)
        if !titles.isEmpty {
            let id3 = directory.write("titles.ts", bytes: TimedID3Stream.transportStream(titles: titles, interval: titleInterval))
            // The muxer waits up to -max_interleave_delta (10 s by default) for a packet of every stream;
            // the titles are sparse, so without a short one the audio would come 10 s late.
            argv += ["-re", "-i", id3, "-map", "0:a", "-map", "1:d", "-c:d", "copy", "-max_interleave_delta", "500000"]
        }
        argv += ["-ac", "2", "-c:a", "aac", "-f", "hls", "-hls_time", "1", "-hls_list_size", "6", "-hls_flags", "delete_segments"]
        switch layout {
        case .mpegTS:
            argv += ["-hls_segment_filename", output + "/seg%05d.ts", output + "/live.m3u8"]
        case .master:
            argv += [
                "-map", "0:a", "-map", "0:a", "-b:a:0", "64k", "-b:a:1", "128k", "-var_stream_map", "a:0 a:1",
                "-master_pl_name", "master.m3u8", "-hls_segment_filename", output + "/v%v/seg%05d.ts", output + "/v%v/index.m3u8"
            ]
        case .fmp4:
            argv += [
                "-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4", "-hls_segment_filename", output + "/seg%05d.m4s",
                output + "/live.m3u8"
            ]
        }
        encoder = try ServerProcess(argv, name: "ffmpeg", logsIn: directory)
    }

    /// What ffmpeg wrote.
    public var log: String { encoder.log }

    /// Ends the stream (ffmpeg writes the playlists' end); returns once ffmpeg has exited.
    public func stop() async { await encoder.stop() }
}
