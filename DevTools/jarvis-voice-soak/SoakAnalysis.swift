/// The pass/fail rules of the endurance run.
///
/// Footprint (RSS, anonymous memory, descriptors, threads): the first 10 % of the run is start-up
/// and ignored. The largest value in the last quarter must not exceed the largest value in the window
/// right after start-up (10 %–35 % of the run) by more than the metric's margin. Maxima, not means:
/// samples land at random moments of turns (a WebSocket, an HTTP request open), and both windows hold
/// several turns of each kind. The slope of a least-squares line over the second half is reported
/// (per hour) for the record. PSS is reported, not judged: shared pages are divided among every process
/// mapping them, so it moves with whatever else runs (each `ctl` this run spawns maps the same binary).
///
/// Latency: the median `first_audio_ms` of the last quarter's turns must stay within 1.5× the first
/// quarter's + 250 ms (a loaded shared machine moves single turns by hundreds of ms).
///
/// Turns: none lost, none stuck, none leaving the music ducked; every fault recovered; the service
/// alive to the end and exiting 0 on SIGTERM.
struct SoakAnalysis {
    struct Metric {
        var name: String
        var unit: String
        var margin: Double
        var judged = true
        var value: (ProcessSample) -> Double
    }

    static var metrics: [Metric] {
        [
            Metric(name: "rss", unit: "KiB", margin: 3_072) { Double($0.rssKiB) },
            Metric(name: "pss", unit: "KiB", margin: 3_072, judged: false) { Double($0.pssKiB) },
            Metric(name: "anon", unit: "KiB", margin: 2_048) { Double($0.anonKiB) },
            Metric(name: "fds", unit: "", margin: 2) { Double($0.fds) },
            Metric(name: "threads", unit: "", margin: 2) { Double($0.threads) }
        ]
    }

    struct MetricReport {
        var metric: Metric
        var start: Double
        var earlyMax: Double
        var lateMax: Double
        var slopePerHour: Double
        var passed: Bool

        var line: String {
            let unit = metric.unit.isEmpty ? "" : " \(metric.unit)"
            return "\(metric.name): first sample \(SoakNumber.fixed(start, 0))\(unit), max after start-up \(SoakNumber.fixed(earlyMax, 0)), "
                + "max in the last quarter \(SoakNumber.fixed(lateMax, 0)) (margin \(SoakNumber.fixed(metric.margin, 0))), "
                + "second-half slope \(SoakNumber.fixed(slopePerHour, 1))\(unit)/h: "
                + (metric.judged ? (passed ? "flat" : "GROWS") : "reported only")
        }
    }

    var metricReports: [MetricReport] = []
    var failures: [String] = []
    var lines: [String] = []

    init(samples: [SampleRow], turns: [TurnResult], faults: [FaultResult], seconds: Double) {
        let startUp = seconds * 0.10
        let early = samples.filter { $0.at >= startUp && $0.at < seconds * 0.35 }
        let late = samples.filter { $0.at >= seconds * 0.75 }
        let secondHalf = samples.filter { $0.at >= seconds * 0.5 }
        if early.isEmpty || late.isEmpty {
            failures.append("too few samples (\(samples.count)) to judge trends")
        } else {
            for metric in Self.metrics {
                let earlyMax = early.map { metric.value($0.process) }.max()!
                let lateMax = late.map { metric.value($0.process) }.max()!
                let slope = Self.slope(secondHalf.map { ($0.at, metric.value($0.process)) }) * 3_600
                let report = MetricReport(
                    metric: metric, start: metric.value(samples[0].process), earlyMax: earlyMax,
                    lateMax: lateMax, slopePerHour: slope, passed: !metric.judged || lateMax <= earlyMax + metric.margin)
                metricReports.append(report)
                lines.append(report.line)
                if !report.passed { failures.append("\(metric.name) grows: \(report.line)") }
            }
        }

        let latencies = turns.compactMap { turn in turn.firstAudioMs.map { (turn.at, Double($0)) } }
        let quarter = max(1, latencies.count / 4)
        if latencies.count >= 4 {
            let first = Self.median(latencies.prefix(quarter).map(\.1))
            let last = Self.median(latencies.suffix(quarter).map(\.1))
            let bound = 1.5 * first + 250
            lines.append(
                "first_audio_ms: median \(SoakNumber.fixed(Self.median(latencies.map(\.1)), 0)), max \(SoakNumber.fixed(latencies.map(\.1).max()!, 0)); "
                    + "first quarter median \(SoakNumber.fixed(first, 0)), last quarter \(SoakNumber.fixed(last, 0)) (bound \(SoakNumber.fixed(bound, 0)))"
            )
            if last > bound { failures.append("latency grows: last quarter's median first_audio_ms \(last) > \(bound)") }
        } else {
            lines.append("first_audio_ms: \(latencies.count) turns with a latency line (too few to judge a trend)")
        }

        let lost = turns.filter(\.lost)
        let stuck = turns.filter(\.stuck)
        let ducked = turns.filter(\.leftDucked)
        let byKind = Dictionary(grouping: turns, by: \.kind)
        let kinds = [SoakPlan.TurnKind.spoken, .typed, .bargeIn, .realtimeDrop].map { kind in
            "\(byKind[kind]?.filter { $0.problem == nil }.count ?? 0)/\(byKind[kind]?.count ?? 0) \(kind.rawValue)"
        }
        lines.append(
            "turns: \(turns.count) (\(kinds.joined(separator: ", ")) ok); lost \(lost.count), stuck \(stuck.count), "
                + "music left ducked \(ducked.count); barge-ins that cut the answer \(turns.filter(\.cutByBargeIn).count)")
        for turn in turns where turn.problem != nil {
            failures.append("turn \(turn.index) (\(turn.kind.rawValue) at \(SoakNumber.fixed(turn.at, 0)) s): \(turn.problem!)")
        }
        for fault in faults {
            lines.append("fault \(fault.fault.rawValue) at \(SoakNumber.fixed(fault.at, 0)) s: \(fault.problem ?? fault.detail)")
            if let problem = fault.problem { failures.append("\(fault.fault.rawValue): \(problem)") }
        }
    }

    var passed: Bool { failures.isEmpty }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// Least-squares slope of y over x (0 with fewer than two distinct x).
    static func slope(_ points: [(Double, Double)]) -> Double {
        guard points.count >= 2 else { return 0 }
        let n = Double(points.count)
        let meanX = points.map(\.0).reduce(0, +) / n
        let meanY = points.map(\.1).reduce(0, +) / n
        var sxy = 0.0
        var sxx = 0.0
        for (x, y) in points {
            sxy += (x - meanX) * (y - meanY)
            sxx += (x - meanX) * (x - meanX)
        }
        return sxx > 0 ? sxy / sxx : 0
    }
}
