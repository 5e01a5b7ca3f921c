import TestProcess

/// Finite audio files of a sine tone made by ffmpeg at test time (no binaries committed), for a file
/// server (`NginxServer`) to serve: every live format of `FFmpegFeed`, AAC in MP4, and native FLAC.
public enum FFmpegFile {
    public enum Format: Sendable, Hashable {
        /// What a live feed sends, as a file (`.mp3`, `.opus`, `.ogg`, `.oga`, `.aac`).
        case stream(FFmpegFeed.Format)
        /// AAC in MP4 (`.m4a`). `faststart`: the index (moov) before the audio; without it ffmpeg writes
        /// the index at the end, so a player must read the file's tail (a Range request) before any audio.
        case m4a(faststart: Bool)
        /// Native FLAC (`.flac`).
        case flac

        var encoding: [String] {
            switch self {
            case .stream(let format): format.encoding
            case .m4a(let faststart): ["-c:a", "aac", "-b:a", "128k"] + (faststart ? ["-movflags", "+faststart"] : []) + ["-f", "mp4"]
            case .flac: ["-c:a", "flac", "-f", "flac"]
            }
        }

        var fileExtension: String {
            switch self {
            case .stream(let format): format.fileExtension
            case .m4a: "m4a"
            case .flac: "flac"
            }
        }
    }

    /// Writes `seconds` of a `frequency` Hz stereo tone (-18 dBFS) in `format` to `directory/name.EXT`;
    /// returns the file's name (`name.EXT`).
    public static func write(
        _ format: Format, seconds: Double, frequency: Int, sampleRate: Int = 48_000, into directory: String, name: String
    ) async throws -> String {
        let file = "\(name).\(format.fileExtension)"
        let argv =
            FFmpegFeed.tone(frequency: frequency, sampleRate: sampleRate, seconds: seconds) + ["-ac", "2"] + format.encoding
            + ["-y", directory + "/" + file]
        let result = try await ChildProcess.run(argv, stdout: .discard, timeout: .seconds(60))
        guard result.status == 0 else {
            throw ServerProcessError(description: "ffmpeg could not write \(file) (\(result.status)): \(result.stderr)")
        }
        return file
    }
}
