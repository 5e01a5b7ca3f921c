/// EBU R128 loudness measured by ffmpeg's `ebur128` filter (libavfilter's own BS.1770 implementation),
/// the independent reference the product's `LoudnessMeter` and the speaker's output are checked against.
public enum FFmpegLoudness {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The integrated loudness (LUFS) of raw signed 16-bit little-endian PCM in `path`, optionally only
    /// `duration` seconds from `start`; nil when ffmpeg found nothing above the gates.
    /// ffmpeg 5.1 prints a wrong summary with `framelog=quiet`, so its per-frame lines are let through.
    public static func integrated(
        rawFile path: String, sampleRate: Int, channels: Int, start: Double? = nil, duration: Double? = nil, dualMono: Bool = false
    ) async throws -> Double? {
        var argv = ["ffmpeg", "-nostdin", "-nostats", "-hide_banner", "-f", "s16le", "-ar", String(sampleRate), "-ac", String(channels)]
        if let start { argv += ["-ss", String(start)] }
        if let duration { argv += ["-t", String(duration)] }
        argv += ["-i", path, "-af", "ebur128" + (dualMono ? "=dualmono=true" : ""), "-f", "null", "-"]
        let result = try await ChildProcess.run(argv, stdout: .discard, timeout: .seconds(60))
        guard result.status == 0 else { throw Failure(description: "\(argv.joined(separator: " ")): \(result)") }
        let lines = result.stderr.split(separator: "\n")
        guard let summary = lines.lastIndex(where: { $0.contains("Integrated loudness:") }),
            let line = lines[summary...].first(where: { $0.trimmingPrefix(while: { $0 == " " }).hasPrefix("I:") })
        else { throw Failure(description: "no summary from \(argv.joined(separator: " ")): \(result.stderr.suffix(2_000))") }
        let value = line.split(separator: " ").dropFirst().first.flatMap { Double($0) }
        guard let value else { throw Failure(description: "unreadable \(line)") }
        return value <= -70 ? nil : value
    }
}

extension Substring {
    fileprivate func trimmingPrefix(while predicate: (Character) -> Bool) -> Substring {
        var rest = self
        while let first = rest.first, predicate(first) { rest.removeFirst() }
        return rest
    }
}
