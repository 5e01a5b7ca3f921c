import Glibc

/// Tone bursts (`ToneBurstSignal`) as they left a paced speaker: when each began (CLOCK_MONOTONIC, from
/// the speaker's `PlayedTimeline`) and its peak; and how two speakers' bursts line up.
public struct PlayedBurst: Sendable, Equatable {
    public var nanoseconds: Double
    public var peak: Int

    public static func find(in played: PlayedTimeline) -> [PlayedBurst] {
        let left = played.channel(0)
        return ToneOnsets().onsets(in: left).compactMap { frame in
            guard let time = played.monotonicNanoseconds(ofFrame: frame) else { return nil }
            let start = Int(frame)
            let peak = left[start..<min(left.count, start + 2_400)].map { abs(Int($0)) }.max() ?? 0
            return PlayedBurst(nanoseconds: time, peak: peak)
        }
    }

    /// For every burst of `a` after `after` (ns) that `b` played too (within 200 ms): a's onset minus b's, ms.
    public static func offsets(_ a: [PlayedBurst], _ b: [PlayedBurst], after: Double) -> [Double] {
        a.filter { $0.nanoseconds > after }.compactMap { burst in
            let nearest = b.min { abs($0.nanoseconds - burst.nanoseconds) < abs($1.nanoseconds - burst.nanoseconds) }
            guard let nearest, abs(nearest.nanoseconds - burst.nanoseconds) < 200e6 else { return nil }
            return (burst.nanoseconds - nearest.nanoseconds) / 1e6
        }
    }

    /// CLOCK_MONOTONIC now, ns: the clock the timelines are in.
    public static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) * 1e9 + Double(time.tv_nsec)
    }

    /// "26 bursts, median 0.04 ms, worst 0.06 ms".
    public static func summary(_ offsets: [Double]) -> String {
        let sorted = offsets.map(abs).sorted()
        guard let worst = sorted.last else { return "no bursts in common" }
        return "\(sorted.count) bursts, median \(sorted[sorted.count / 2]) ms, worst \(worst) ms"
    }
}
