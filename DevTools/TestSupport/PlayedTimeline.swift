import TestProcess

/// What a paced playback PCM (`outfile` + `timeline`, DevTools/JVPacedPCM/jvpaced.c) played and when:
/// the outfile's S16LE frames and, from the timeline's lines, the CLOCK_MONOTONIC time at which each frame
/// began to play.
public struct PlayedTimeline: Sendable {
    /// One run of the device: `firstFrame` plays at `startNanoseconds`, later ones at `rate` frames/s.
    public struct Run: Sendable, Equatable {
        public var startNanoseconds: Int64
        public var firstFrame: Int
        public var rate: Double
    }

    /// The outfile's samples, interleaved.
    public let samples: [Int16]
    public let channels: Int
    /// In file order (and so in time order).
    public let runs: [Run]

    public var frameCount: Int { samples.count / channels }

    /// Reads both files as the PCM left them.
    public init(outfile: String, timeline: String, channels: Int) throws {
        let samples = try TestFiles.readSamples(outfile)
        guard let text = TestFiles.readText(timeline) else { throw PlayedTimelineError("cannot read \(timeline)") }
        try self.init(samples: samples, channels: channels, timelineText: text)
    }

    public init(samples: [Int16], channels: Int, timelineText: String) throws {
        var runs: [Run] = []
        for line in timelineText.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 3, let start = Int64(fields[0]), let frame = Int(fields[1]), let rate = Double(fields[2]), rate > 0
            else { throw PlayedTimelineError("bad timeline line \"\(line)\"") }
            runs.append(Run(startNanoseconds: start, firstFrame: frame, rate: rate))
        }
        self.samples = samples
        self.channels = channels
        self.runs = runs
    }

    /// The run that played outfile frame `frame`: the last one starting at or before it (a run that
    /// ended without playing anything shares its first frame with the next).
    public func run(ofFrame frame: Int) -> Run? {
        runs.last { $0.firstFrame <= frame }
    }

    /// CLOCK_MONOTONIC nanoseconds at which outfile frame `frame` (possibly fractional) began to play;
    /// nil before the first run.
    public func monotonicNanoseconds(ofFrame frame: Double) -> Double? {
        guard let run = run(ofFrame: Int(frame.rounded(.down))) else { return nil }
        return Double(run.startNanoseconds) + (frame - Double(run.firstFrame)) * 1e9 / run.rate
    }

    /// One channel of the outfile.
    public func channel(_ index: Int) -> [Int16] {
        stride(from: index, to: samples.count, by: channels).map { samples[$0] }
    }
}

public struct PlayedTimelineError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
