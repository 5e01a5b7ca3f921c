import ALSA
import ALSATestbed
import AudioCore
import EchoControl
import Glibc
import Synchronization
import TestProcess
import Testing

@testable import AudioEngine

/// The echo reference stays aligned with the mic across xruns. The real playback and capture loops
/// run through the paced device's acoustic link (the mic hears the speaker 30 ms later); the lag
/// between the reference handed to the capture processor and the echo in the mic is measured for
/// every captured period. After a capture overrun (the processing stalls past the capture buffer)
/// and after a playback underrun (rendering stalls past the playback buffer), the lag must be the
/// lag measured before the xrun (within 1 ms) a bounded number of periods after it, and stay there;
/// sample by sample, the reference must fall silent and come back with the echo (no reference of
/// sound the speaker did not play, no echo without reference, beyond 1 ms). A second test feeds what
/// the processor saw to the capture chain and watches the echo canceller across the xrun.
@Suite(.serialized) struct XrunAlignmentTests {
    let dir = TemporaryDirectory()
    var config: String { dir.file("asound.conf") }

    enum Xrun: String, CustomTestStringConvertible, Sendable {
        case captureOverrun, playbackUnderrun
        var testDescription: String { rawValue }
    }

    /// Capture periods (10 ms) after the xrun is seen within which the reference must be back.
    static let settlePeriods = 8
    /// ±1 ms at 16 kHz.
    static let toleranceSamples = 16

    @Test(arguments: [Xrun.captureOverrun, .playbackUnderrun])
    func referenceRealignsAfterAnXrun(_ xrun: Xrun) async throws {
        try writeLinkedSpeakerAndMic(to: config, in: dir)
        // Without SCHED_FIFO on a loaded machine a run can glitch more than on purpose; every xrun,
        // wanted or not, must be followed by a realigned reference. A run in which nothing after the
        // wanted xrun could be measured (glitching throughout) is repeated.
        var report = ""
        for _ in 0..<3 {
            let trace = try await record(xrun)
            let analysis = AlignmentAnalysis(trace, expectedLag: 480, xrun: xrun)
            report = analysis.report
            guard let baseline = analysis.baseline else { continue }
            #expect(abs(baseline - 480) <= 32, "aligned reference lags the echo by \(baseline) samples, expected 480\n\(report)")
            guard let wanted = analysis.firstXrunPeriod(of: xrun) else {
                Issue.record("the \(xrun) was never seen\n\(report)")
                return
            }
            let checked = analysis.windowsAfterSettling(from: wanted)
            guard checked.count >= 30 else { continue }
            let misaligned = checked.filter { !$0.isAligned(to: baseline) }
            #expect(misaligned.isEmpty, "\(misaligned.count) of \(checked.count) periods misaligned after settling\n\(report)")
            #expect(analysis.isAligned(at: wanted, baseline: baseline), "not realigned within \(Self.settlePeriods) periods\n\(report)")
            // Around the xrun itself: the reference goes silent and comes back when the echo does.
            let long = analysis.mismatches.filter { $0.length > Self.toleranceSamples }
            #expect(long.isEmpty, "\(long)\n\(report)")
            print("[XrunAlignment] \(xrun): \(analysis.summary(from: wanted, baseline: baseline))")
            return
        }
        Issue.record("no run could be measured after the \(xrun)\n\(report)")
    }

    /// What the echo canceller makes of it: what the processor saw across the xrun is fed to the
    /// service's chain driver and chain (default settings) period by period, as `rt:capture` does.
    ///
    /// The canceller keeps the filter it had. When the reference comes back at the same lag (to the sample),
    /// after a capture overrun the frames whose echo lies in the gap are kept away from it (the capture
    /// loop's stream run tells the driver). In about half the restarts the lag comes back a sample off (the
    /// devices restart at a new sub-sample phase; which way it rounds is chance): the chain's
    /// `ReferenceSlipCheck` finds the shift from the adapted filter and moves the reference back, where
    /// speexdsp alone relearnt the echo path (ERLE about 1 dB, seconds to come back). The printed read
    /// offsets (`ReferenceTap.alignmentResidual`, mean before and after) show which side of the rounding each
    /// stretch fell on.
    @Test(arguments: [Xrun.captureOverrun, .playbackUnderrun])
    func echoCancellerKeepsItsFilterAcrossAnXrun(_ xrun: Xrun) async throws {
        try writeLinkedSpeakerAndMic(to: config, in: dir)
        // 3 s to converge (white noise, 192 ms filter), then the xrun, then 2 s. Only runs with just
        // the wanted xrun are the experiment (another one could move the lag again); without
        // SCHED_FIFO on a loaded machine a run may glitch and is repeated.
        var recorded: (PeriodTrace, AlignmentAnalysis)?
        for _ in 0..<3 {
            let trace = try await record(xrun, periods: 500, at: 300)
            let analysis = AlignmentAnalysis(trace, expectedLag: 480, xrun: xrun)
            if analysis.xrunCount == 1 {
                recorded = (trace, analysis)
                break
            }
        }
        guard let (trace, analysis) = recorded else {
            Issue.record("every run had more xruns than the \(xrun); the canceller was never measured across one")
            return
        }
        let wanted = try #require(analysis.firstXrunPeriod(of: xrun))
        let lagBefore = try #require(analysis.baseline, "no lag measured before the xrun\n\(analysis.report)")
        let lagAfter = try #require(analysis.lagAfterSettling(from: wanted), "no lag measured after the xrun\n\(analysis.report)")
        let chain = try CaptureChain()
        let driver = try CaptureChainDriver(
            chain: chain, uplink: SPSCRing(capacity: 1 << 16, zero: 0), captureRate: 16_000, maxPeriodFrames: 160)
        driver.uplinkActive.store(true, ordering: .relaxed)
        var erle: [Double] = []
        for p in 0..<trace.count {
            let samples = (p * 160)..<((p + 1) * 160)
            driver.process(
                mic: UnsafeBufferPointer(rebasing: trace.mic[samples]),
                reference: UnsafeBufferPointer(rebasing: trace.reference[samples]), streamRun: trace.captureRuns[p],
                referenceEpoch: trace.referenceEpochs[p])
            erle.append(Double(chain.echoReturnLossEnhancementDB))
        }
        let before = erle[wanted - 1]
        let lowest = erle[wanted..<min(erle.count, wanted + 100)].min() ?? 0
        let last = erle.last ?? 0
        let trend = stride(from: wanted - 20, to: erle.count, by: 10).map { "p\($0) \(Int(erle[$0] * 10) / 10)" }
        let residuals = analysis.residualsAround(wanted)
        print(
            "[XrunAlignment] \(xrun): lag \(lagBefore) -> \(lagAfter) samples, \(chain.referenceSlips) reference move(s) (read \(residuals.before)/100 -> \(residuals.after)/100 "
                + "sample off the measurement); ERLE \(Int(before * 10) / 10) dB before, "
                + "lowest \(Int(lowest * 10) / 10) dB in the 1 s after, \(Int(last * 10) / 10) dB at the end (\(trace.count - wanted) periods later)")
        #expect(before > 6, "the canceller had converged before the xrun: \(trend)")
        let what = lagAfter == lagBefore ? "lag unchanged" : "lag moved, reference moved back \(chain.referenceSlips) time(s)"
        #expect(lowest > before - 3, "\(what): ERLE fell from \(before) to \(lowest) dB after the \(xrun): \(trend)")
        #expect(last > before, "\(what): ERLE went on converging: \(trend)")
    }

    /// Runs both loops until `periods` capture periods are recorded, with a capture overrun `at`
    /// capture periods in or a playback underrun 40 periods later.
    private func record(_ xrun: Xrun, periods: Int = 220, at: Int = 60) async throws -> PeriodTrace {
        let tap = try ReferenceTap(sampleRate: 16_000)
        let source = SignalSource(testNoise(count: 16_000, seed: 7))
        let trace = PeriodTrace(periods: periods, periodFrames: 160, stallAtPeriod: xrun == .captureOverrun ? at : nil)
        // The underrun comes 0.4 s after `at` captured periods (the check needs a baseline before
        // it). Counted from the capture, not from playback's start: on a loaded machine the capture
        // loop may start a second or more after playback does.
        if xrun == .playbackUnderrun { source.stallOnceWhen = { trace.count >= at + 40 } }
        let (_, capture) = try await runDuplex(
            config: config, tap: tap, source: source, timeout: .seconds(60), until: { _ in trace.isFull },
            process: { period, playback in
                trace.record(period, playbackXruns: playback.status.xruns, alignmentResidual: tap.alignmentResidual)
            })
        trace.captureRunsAtEnd = capture.status.xruns
        return trace
    }
}

/// What the capture processor saw, period by period: mic and reference samples, the capture
/// stream's run (it changes after lost frames) and how many xruns the playback loop had counted. Preallocated; `record` runs on the capture thread, the rest after
/// `stop()` (join).
final class PeriodTrace: @unchecked Sendable {
    let periodFrames: Int
    let capacity: Int
    let mic: UnsafeMutableBufferPointer<Int16>
    let reference: UnsafeMutableBufferPointer<Int16>
    let captureRuns: UnsafeMutableBufferPointer<Int>
    /// `CapturedPeriod.referenceEpoch`: where the tap aligned the reference afresh.
    let referenceEpochs: UnsafeMutableBufferPointer<Int>
    let playbackXruns: UnsafeMutableBufferPointer<Int>
    let firstFrameNanoseconds: UnsafeMutableBufferPointer<Int64>
    /// `ReferenceTap.alignmentResidual` after the period's pull.
    let alignmentResidual: UnsafeMutableBufferPointer<Double>
    private let recorded = Atomic<Int>(0)
    private let stallAtPeriod: Int?
    var captureRunsAtEnd = 0

    init(periods: Int, periodFrames: Int, stallAtPeriod: Int?) {
        self.periodFrames = periodFrames
        capacity = periods
        self.stallAtPeriod = stallAtPeriod
        mic = .zeroed(capacity: periods * periodFrames)
        reference = .zeroed(capacity: periods * periodFrames)
        captureRuns = .zeroed(capacity: periods)
        referenceEpochs = .zeroed(capacity: periods)
        playbackXruns = .zeroed(capacity: periods)
        firstFrameNanoseconds = .zeroed(capacity: periods)
        alignmentResidual = .zeroed(capacity: periods)
    }

    deinit {
        mic.deallocate()
        reference.deallocate()
        captureRuns.deallocate()
        referenceEpochs.deallocate()
        playbackXruns.deallocate()
        firstFrameNanoseconds.deallocate()
        alignmentResidual.deallocate()
    }

    var count: Int { recorded.load(ordering: .acquiring) }
    var isFull: Bool { count >= capacity }

    func record(_ period: CapturedPeriod, playbackXruns playback: Int, alignmentResidual residual: Double) {
        let p = recorded.load(ordering: .relaxed)
        guard p < capacity, period.mic.count == periodFrames else { return }
        for i in 0..<periodFrames {
            mic[p * periodFrames + i] = period.mic[i]
            reference[p * periodFrames + i] = period.reference?[i] ?? 0
        }
        captureRuns[p] = period.streamRun
        referenceEpochs[p] = period.referenceEpoch
        playbackXruns[p] = playback
        firstFrameNanoseconds[p] = period.firstFrameNanoseconds
        alignmentResidual[p] = residual
        recorded.store(p + 1, ordering: .releasing)
        // The processing stalls past the 40 ms capture buffer: the next read overruns.
        if p == stallAtPeriod { usleep(120_000) }
    }
}

/// Per captured period: the lag at which the reference best explains the echo in the mic.
struct AlignmentAnalysis {
    struct Window {
        var period: Int
        var micLevel: Double
        var rawReferenceLevel: Double
        var nonzeroReference: Int
        /// The reference level where the mic should hear it: `baseline` samples earlier.
        var heardReferenceLevel: Double
        /// Best lag over the searchable range, nil when the period is silent in the mic or the
        /// reference it needs lies before a capture discontinuity.
        var lag: Int?
        var correlation: Double
        /// Best correlation within the tolerance of the baseline lag (how well the reference explains
        /// the echo where it should).
        var correlationAtBaseline: Double
        var periodsSinceXrun: Int?
        /// The reference `baseline` samples back lies in the same capture segment.
        var measurable = false

        func isAligned(to baseline: Int) -> Bool {
            guard let lag else { return correlationAtBaseline > 0.9 }
            return abs(lag - baseline) <= XrunAlignmentTests.toleranceSamples && correlation > 0.9
        }
    }

    let periodFrames: Int
    let captureRuns: [Int]
    let playbackXruns: [Int]
    let firstFrame: [Int64]
    let alignmentResidual: [Double]
    private(set) var windows: [Window] = []
    private(set) var baseline: Int?

    /// `xrun`: the wanted one; the baseline is the lag measured before it (away from any other).
    init(_ trace: PeriodTrace, expectedLag: Int, xrun: XrunAlignmentTests.Xrun) {
        periodFrames = trace.periodFrames
        let periods = min(trace.count, trace.capacity)
        let mic = (0..<periods * periodFrames).map { Double(trace.mic[$0]) }
        let reference = (0..<periods * periodFrames).map { Double(trace.reference[$0]) }
        captureRuns = (0..<periods).map { trace.captureRuns[$0] }
        playbackXruns = (0..<periods).map { trace.playbackXruns[$0] }
        firstFrame = (0..<periods).map { trace.firstFrameNanoseconds[$0] - trace.firstFrameNanoseconds[0] }
        alignmentResidual = (0..<periods).map { trace.alignmentResidual[$0] }
        // Measure periods before any xrun first, for the baseline.
        var segmentStart = 0
        var lastXrun: Int?
        var raw: [Window] = []
        for p in 0..<periods {
            if p > 0, captureRuns[p] != captureRuns[p - 1] {
                segmentStart = p
                lastXrun = p
            }
            if p > 0, playbackXruns[p] != playbackXruns[p - 1] { lastXrun = p }
            let lo = p * periodFrames, hi = lo + periodFrames
            let micLevel = Self.rms(mic, lo..<hi)
            // The echo needs the reference `lag` samples back, within the same capture segment.
            let maxLag = min(800, lo - segmentStart * periodFrames)
            var window = Window(
                period: p, micLevel: micLevel, rawReferenceLevel: Self.rms(reference, lo..<hi),
                nonzeroReference: (lo..<hi).filter { reference[$0] != 0 }.count, heardReferenceLevel: 0, lag: nil, correlation: 0,
                correlationAtBaseline: 0, periodsSinceXrun: lastXrun.map { p - $0 })
            if micLevel > 300, maxLag >= expectedLag + 32 {
                let found = Self.bestLag(reference, mic, window: lo..<hi, lags: -160...maxLag)
                window.lag = found.lag
                window.correlation = found.correlation
            }
            raw.append(window)
        }
        let counts = xrun == .captureOverrun ? captureRuns : playbackXruns
        let wanted = counts.indices.first { $0 > 0 && counts[$0] != counts[$0 - 1] } ?? periods
        let before = raw.filter { w in
            w.period < wanted && (w.periodsSinceXrun ?? Int.max) >= XrunAlignmentTests.settlePeriods && w.correlation > 0.9
        }.compactMap(\.lag)
        if before.count >= 10 { baseline = before.sorted()[before.count / 2] }
        if let baseline {
            for i in raw.indices {
                let lo = raw[i].period * periodFrames
                let segment = Self.segmentStart(of: raw[i].period, captureRuns) * periodFrames
                if lo - baseline >= segment {
                    raw[i].measurable = true
                    raw[i].heardReferenceLevel = Self.rms(reference, (lo - baseline)..<(lo - baseline + periodFrames))
                    raw[i].correlationAtBaseline =
                        Self.bestLag(
                            reference, mic, window: lo..<(lo + periodFrames),
                            lags: (baseline - XrunAlignmentTests.toleranceSamples)...(baseline + XrunAlignmentTests.toleranceSamples)
                        ).correlation
                }
            }
        }
        windows = raw
        if let baseline {
            mismatches = Self.mismatches(
                mic: trace.mic, reference: trace.reference, periods: periods,
                periodFrames: periodFrames, captureRuns: captureRuns, lag: baseline)
        }
    }

    /// A stretch of samples in which the mic and the reference (shifted by the baseline lag) disagree
    /// about whether the speaker is sounding: `unheard`, reference without echo (the reference carries
    /// sound the speaker did not play then); `missing`, echo without reference.
    struct Mismatch: CustomStringConvertible {
        var start: Int
        var length: Int
        var unheard: Bool
        var description: String {
            "\(unheard ? "unheard reference" : "echo without reference") at sample \(start) (period \(start / 160)), \(length) samples"
        }
    }

    private(set) var mismatches: [Mismatch] = []

    /// Sample by sample, with a ±8-sample neighbourhood (a sample-or-two of timestamp rounding and
    /// the odd near-zero noise sample must not count): is there sound in the mic, is there sound in
    /// the reference `lag` samples earlier? Samples whose shifted reference lies before a capture
    /// discontinuity are not judged.
    private static func mismatches(
        mic: UnsafeMutableBufferPointer<Int16>, reference: UnsafeMutableBufferPointer<Int16>, periods: Int,
        periodFrames: Int, captureRuns: [Int], lag: Int
    ) -> [Mismatch] {
        let count = periods * periodFrames
        let reach = 8
        func active(_ x: UnsafeMutableBufferPointer<Int16>, around n: Int) -> Bool {
            for i in (n - reach)...(n + reach) where x[i] != 0 { return true }
            return false
        }
        var found: [Mismatch] = []
        var current: Mismatch?
        var segmentStart = 0
        for n in reach..<(count - reach) {
            let p = n / periodFrames
            if n % periodFrames == 0, p > 0, captureRuns[p] != captureRuns[p - 1] { segmentStart = n }
            var kind: Bool?
            if n - lag - reach >= segmentStart {
                let heard = active(mic, around: n), played = active(reference, around: n - lag)
                if heard != played { kind = played }
            }
            if let kind, current?.unheard == kind, let c = current, c.start + c.length == n {
                current!.length += 1
            } else {
                if let c = current { found.append(c) }
                current = kind.map { Mismatch(start: n, length: 1, unheard: $0) }
            }
        }
        if let c = current { found.append(c) }
        return found
    }

    /// Xruns of either loop seen by the capture processor.
    var xrunCount: Int {
        (1..<captureRuns.count).filter { captureRuns[$0] != captureRuns[$0 - 1] || playbackXruns[$0] != playbackXruns[$0 - 1] }.count
    }

    /// The period at which the first xrun of that kind was seen by the capture processor.
    func firstXrunPeriod(of xrun: XrunAlignmentTests.Xrun) -> Int? {
        let counts = xrun == .captureOverrun ? captureRuns : playbackXruns
        return counts.indices.first { $0 > 0 && counts[$0] != counts[$0 - 1] }
    }

    /// Periods from `settlePeriods` after the xrun on that are not within `settlePeriods` of a
    /// later xrun and carry something to check: echo in the mic, or reference where the mic should
    /// hear it (the baseline lag's correlation judges that one).
    func windowsAfterSettling(from xrun: Int) -> [Window] {
        windows.filter { w in
            guard w.period >= xrun + XrunAlignmentTests.settlePeriods,
                let since = w.periodsSinceXrun, since >= XrunAlignmentTests.settlePeriods
            else { return false }
            return w.measurable && (w.micLevel > 300 || w.heardReferenceLevel > 300)
        }
    }

    /// The median lag of the checked periods after the xrun.
    func lagAfterSettling(from xrun: Int) -> Int? {
        let lags = windowsAfterSettling(from: xrun).filter { $0.correlation > 0.9 }.compactMap(\.lag).sorted()
        return lags.count >= 10 ? lags[lags.count / 2] : nil
    }

    /// The mean `ReferenceTap.alignmentResidual` (in hundredths of a sample) of the periods whose lag
    /// makes the lag before the xrun and of those whose lag makes the lag after it: the sub-sample
    /// offset from the delay measurements at which each side was read.
    func residualsAround(_ xrun: Int) -> (before: Int, after: Int) {
        func mean(_ windows: [Window]) -> Int {
            let periods = windows.filter { $0.lag != nil && $0.correlation > 0.9 }.map(\.period)
            return periods.isEmpty ? 0 : Int((periods.map { alignmentResidual[$0] }.reduce(0, +) / Double(periods.count) * 100).rounded())
        }
        let before = windows.filter { $0.period < xrun && ($0.periodsSinceXrun ?? Int.max) >= XrunAlignmentTests.settlePeriods }
        return (mean(before), mean(windowsAfterSettling(from: xrun)))
    }

    /// Every checkable period from `settlePeriods` after the xrun up to 30 periods later is aligned.
    func isAligned(at xrun: Int, baseline: Int) -> Bool {
        windowsAfterSettling(from: xrun).filter { $0.period < xrun + XrunAlignmentTests.settlePeriods + 30 }
            .allSatisfy { $0.isAligned(to: baseline) }
    }

    /// How many periods after the xrun the reference was back for good, and how far off it was before.
    func summary(from xrun: Int, baseline: Int) -> String {
        let after = windows.filter { $0.period >= xrun && $0.measurable && ($0.micLevel > 300 || $0.heardReferenceLevel > 300) }
        let lastBad = after.last { !$0.isAligned(to: baseline) }
        let offsets = after.compactMap { w in w.lag.map { $0 - baseline } }.filter { abs($0) > XrunAlignmentTests.toleranceSamples }
        let residuals = residualsAround(xrun)
        return "baseline lag \(baseline) samples, \(lagAfterSettling(from: xrun).map(String.init) ?? "?") after; "
            + "read \(residuals.before)/100 -> \(residuals.after)/100 sample off the measurement; xrun seen at period \(xrun); "
            + "last misaligned period \(lastBad.map { "\($0.period) (+\($0.period - xrun))" } ?? "none"); "
            + "offsets seen \(offsets); longest mismatch \(mismatches.max { $0.length < $1.length }.map(String.init(describing:)) ?? "none")"
    }

    var report: String {
        windows.map { w in
            "p\(w.period) mic \(Int(w.micLevel)) ref \(Int(w.heardReferenceLevel)) raw \(Int(w.rawReferenceLevel)) nz \(w.nonzeroReference) t \(firstFrame[w.period] / 100_000) lag \(w.lag.map(String.init) ?? "-") "
                + "c \(Int(w.correlation * 100))% cb \(Int(w.correlationAtBaseline * 100))% "
                + "xc \(captureRuns[w.period]) xp \(playbackXruns[w.period])"
        }.joined(separator: "\n")
    }

    private static func segmentStart(of period: Int, _ captureRuns: [Int]) -> Int {
        var p = period
        while p > 0 && captureRuns[p - 1] == captureRuns[period] { p -= 1 }
        return p
    }

    private static func rms(_ x: [Double], _ range: Range<Int>) -> Double {
        var s = 0.0
        for i in range { s += x[i] * x[i] }
        return (s / Double(range.count)).squareRoot()
    }

    /// Normalized correlation of `y[n]` with `x[n - lag]` over `window`.
    private static func correlation(_ x: [Double], _ y: [Double], window: Range<Int>, lag: Int) -> Double {
        var sxy = 0.0, sxx = 0.0, syy = 0.0
        for n in window where n - lag >= 0 && n - lag < x.count {
            let a = x[n - lag], b = y[n]
            sxy += a * b
            sxx += a * a
            syy += b * b
        }
        return sxx > 0 && syy > 0 ? sxy / (sxx * syy).squareRoot() : 0
    }

    private static func bestLag(_ x: [Double], _ y: [Double], window: Range<Int>, lags: ClosedRange<Int>) -> (lag: Int, correlation: Double) {
        var best = (lag: 0, correlation: -2.0)
        for lag in lags {
            // Only lags for which the whole window's reference was recorded.
            guard window.upperBound - 1 - lag < x.count, window.lowerBound - lag >= 0 else { continue }
            let c = correlation(x, y, window: window, lag: lag)
            if c > best.correlation { best = (lag, c) }
        }
        return best
    }
}
