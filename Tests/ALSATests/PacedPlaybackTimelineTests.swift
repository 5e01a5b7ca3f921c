import ALSA
import ALSATestbed
import Glibc
import TestProcess
import TestSupport
import Testing

private func monotonicNanoseconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) * 1e9 + Double(ts.tv_nsec)
}

/// 200 ms of buffer: two devices driven from one thread must not underrun on a loaded machine.
private let stereo48k = PCMConfiguration(sampleRate: 48_000, channels: 2, periodMicroseconds: 10_000, periods: 20)

/// A playback device under test: what was written to it, and moments at which its delay told which
/// written frame was playing (independent of the timeline file, to check it against).
private final class TimedPlayback {
    let pcm: PCM
    private(set) var written = 0
    /// (monotonic ns before and after `delay()`, written frame index playing in between).
    private(set) var observations: [(before: Double, after: Double, frame: Int)] = []

    init(_ name: String, config: String, configuration: PCMConfiguration = stereo48k) throws {
        pcm = try PCM(device: PCMDevice(name: name, configFile: config), stream: .playback, configuration: configuration)
    }

    /// Writes `samples` a period at a time; an xrun on a loaded machine is recovered and the period
    /// written again (everything queued before an underrun has played, so nothing is lost).
    func play(_ samples: [Int16], observe: Bool = true) throws {
        let period = pcm.parameters.periodSamples
        var offset = 0
        while offset < samples.count {
            let n = min(period, samples.count - offset)
            if let error = write(samples[offset..<offset + n]) {
                guard error.kind == .xrun else { throw error }
                try pcm.recover(from: error)
                continue
            }
            offset += n
            written += n / pcm.parameters.channels
            if observe, pcm.state == .running { try self.observe() }
        }
    }

    /// nil when written, else why not.
    private func write(_ slice: ArraySlice<Int16>) -> ALSAError? {
        do {
            try slice.withUnsafeBufferPointer { (b) throws(ALSAError) in try pcm.write(b) }
            return nil
        } catch {
            return error
        }
    }

    /// Takes back `frames` queued frames; returns how many the device gave back.
    func rewind(frames: Int) throws -> Int {
        let back = try pcm.rewind(frames: frames)
        written -= back
        return back
    }

    func observe() throws {
        let before = monotonicNanoseconds()
        guard let delay = try? pcm.delay() else { return }  // an xrun on a loaded machine: no observation
        let after = monotonicNanoseconds()
        observations.append((before, after, written - delay))
    }

    /// The frame the device is playing now (written minus delay) and the moment, good to a few µs.
    func playingFrame() throws -> (nanoseconds: Double, frame: Int) {
        let before = monotonicNanoseconds()
        let delay = try pcm.delay()
        let after = monotonicNanoseconds()
        return ((before + after) / 2, written - delay)
    }
}

@Suite(.serialized) struct PacedPlaybackTimelineTests {
    let dir = TemporaryDirectory()
    var config: String { dir.file("asound.conf") }

    private func device(_ name: String, driftPPM: Double) -> TestPCM {
        .paced(
            name: name,
            PacedPCMOptions(outfile: dir.file("\(name).raw"), driftPPM: driftPPM, timeline: dir.file("\(name).timeline")))
    }

    private func timeline(_ name: String) throws -> PlayedTimeline {
        try PlayedTimeline(outfile: dir.file("\(name).raw"), timeline: dir.file("\(name).timeline"), channels: 2)
    }

    /// Every observation of the delay falls in the time the timeline gives its frame: the frame playing
    /// between `before` and `after` began no later than `after` and ended no earlier than `before`.
    private func expectTimelineAgrees(_ played: PlayedTimeline, _ playback: TimedPlayback, outfileOffset: Int = 0) {
        for o in playback.observations {
            let frame = Double(o.frame + outfileOffset)
            guard let begins = played.monotonicNanoseconds(ofFrame: frame),
                let ends = played.monotonicNanoseconds(ofFrame: frame + 1)
            else {
                Issue.record("frame \(o.frame) is before the first run")
                return
            }
            #expect(begins <= o.after + 1_000 && ends >= o.before - 1_000, "frame \(o.frame): \(begins)…\(ends) vs \(o.before)…\(o.after)")
        }
    }

    @Test(arguments: [50.0, -50.0]) func driftedPlaybackTimelinePlacesEveryBurst(ppm: Double) throws {
        let signal = ToneBurstSignal(periodSeconds: 0.5, firstBurstSeconds: 0.25)
        let input = signal.samples(from: 0, count: 48_000 * 5 / 2)
        try TestPCMConfig.write([device("spk", driftPPM: ppm)], to: config)
        do {
            let playback = try TimedPlayback("spk", config: config)
            try playback.play(input)
            try playback.pcm.drain()
            let played = try timeline("spk")
            #expect(played.samples == input)
            #expect(played.runs.count >= 1)
            for run in played.runs { #expect(abs(run.rate - 48_000 * (1 + ppm * 1e-6)) < 1e-6, "rate \(run.rate)") }
            let onsets = ToneOnsets().onsets(in: played.channel(0))
            #expect(onsets == (0..<5).map { Double(signal.burstStartFrame($0)) })
            #expect(playback.observations.count > 100)
            expectTimelineAgrees(played, playback)
        }
    }

    @Test func devicesAtPlusAndMinus50PPMSeparateBy100MicrosecondsPerSecond() throws {
        let signal = ToneBurstSignal(periodSeconds: 0.5, firstBurstSeconds: 0.25)
        try TestPCMConfig.write([device("fast", driftPPM: 50), device("slow", driftPPM: -50)], to: config)
        let fast = try TimedPlayback("fast", config: config)
        let slow = try TimedPlayback("slow", config: config)
        let period = fast.pcm.parameters.periodFrames
        var frame = 0
        var first: (fast: (nanoseconds: Double, frame: Int), slow: (nanoseconds: Double, frame: Int))?
        while frame < 48_000 * 5 {
            let chunk = signal.samples(from: frame, count: period)
            try fast.play(chunk, observe: false)
            try slow.play(chunk, observe: false)
            frame += period
            if first == nil, frame >= 48_000, fast.pcm.state == .running, slow.pcm.state == .running {
                first = (try fast.playingFrame(), try slow.playingFrame())
            }
        }
        let last = (fast: try fast.playingFrame(), slow: try slow.playingFrame())
        guard let start = first else {
            Issue.record("the devices never both ran")
            return
        }
        func ppm(_ a: (nanoseconds: Double, frame: Int), _ b: (nanoseconds: Double, frame: Int)) -> Double {
            (Double(b.frame - a.frame) / ((b.nanoseconds - a.nanoseconds) / 1e9) / 48_000 - 1) * 1e6
        }
        let fastPPM = ppm(start.fast, last.fast), slowPPM = ppm(start.slow, last.slow)
        // Over ~3.8 s a frame of rounding is 5 ppm.
        #expect(abs(fastPPM - 50) < 12 && abs(slowPPM + 50) < 12, "measured \(fastPPM) and \(slowPPM) ppm")
        #expect(abs(fastPPM - slowPPM - 100) < 20, "devices separate by \(fastPPM - slowPPM) µs/s")
        try fast.pcm.drain()
        try slow.pcm.drain()

        // The same bursts, as the timelines place them: the gap between the devices grows 100 µs/s.
        let onsetsFast = try timeline("fast"), onsetsSlow = try timeline("slow")
        let times = [onsetsFast, onsetsSlow].map { played in
            ToneOnsets().onsets(in: played.channel(0)).compactMap { played.monotonicNanoseconds(ofFrame: $0) }
        }
        try #require(times[0].count == 10 && times[1].count == 10)
        let gap0 = times[1][0] - times[0][0]
        for k in 1..<10 {
            let growth = (times[1][k] - times[0][k]) - gap0
            let expected = 100e-6 * (times[0][k] - times[0][0])
            #expect(abs(growth - expected) < 1_000, "burst \(k): gap grew \(growth) ns, expected \(expected)")
        }
    }

    @Test func anXrunRestartAddsATimelineLineAndKeepsTheMappingExact() throws {
        let signal = ToneBurstSignal(periodSeconds: 0.25, firstBurstSeconds: 0.1)
        let config40ms = PCMConfiguration(sampleRate: 48_000, channels: 2, periodMicroseconds: 10_000, periods: 4)
        try TestPCMConfig.write([device("spk", driftPPM: 50)], to: config)
        let firstPart = 48_000 * 3 / 10
        let playback = try TimedPlayback("spk", config: config, configuration: config40ms)
        try playback.play(signal.samples(from: 0, count: firstPart))
        usleep(100_000)  // the 40 ms buffer runs dry
        var caught: ALSAError?
        let late = [Int16](repeating: 0, count: 1_920)
        do { try late.withUnsafeBufferPointer { (b) throws(ALSAError) in try playback.pcm.write(b) } } catch { caught = error }
        #expect(caught?.kind == .xrun)
        if let caught { try playback.pcm.recover(from: caught) }
        let restarted = monotonicNanoseconds()
        try playback.play(signal.samples(from: firstPart, count: 48_000 * 7 / 10))
        try playback.pcm.drain()

        let played = try timeline("spk")
        #expect(played.samples == signal.samples(from: 0, count: 48_000))
        let restart = try #require(played.runs.last)
        #expect(played.runs.count >= 2)
        // Everything queued before the underrun played; the new run starts after the recovery.
        #expect(played.runs.contains { $0.firstFrame == firstPart && Double($0.startNanoseconds) >= restarted })
        #expect(restart.startNanoseconds >= Int64(restarted))
        #expect(ToneOnsets(minimumSpacing: 6_000).onsets(in: played.channel(0)) == (0..<4).map { Double(signal.burstStartFrame($0)) })
        expectTimelineAgrees(played, playback)
    }

    @Test func droppedAndRewoundFramesNeverReachTheOutfile() throws {
        let signal = ToneBurstSignal(periodSeconds: 0.25, firstBurstSeconds: 0.1)
        try TestPCMConfig.write([device("spk", driftPPM: -50)], to: config)
        let playback = try TimedPlayback("spk", config: config)
        let first = signal.samples(from: 0, count: 24_000)
        try playback.play(first)
        // Take back 100 ms that has not played and play other frames in its place.
        let rewound = try playback.rewind(frames: 4_800)
        #expect(rewound == 4_800)
        let kept = 24_000 - rewound
        let replacement = signal.samples(from: 30_000, count: 9_600)
        try playback.play(replacement, observe: false)
        // Dropping what is queued ends the run; the next starts where the outfile ends.
        let beforeDrop = try playback.playingFrame()
        try playback.pcm.drop()
        let playedAtDrop = try timeline("spk").frameCount
        #expect(playedAtDrop >= beforeDrop.frame && playedAtDrop < kept + 9_600, "\(playedAtDrop) played of \(kept + 9_600)")
        try playback.pcm.prepare()
        try playback.play(signal.samples(from: 0, count: 24_000), observe: false)
        try playback.pcm.drain()

        let played = try timeline("spk")
        let expected = Array(first[0..<kept * 2]) + replacement
        #expect(Array(played.samples[0..<playedAtDrop * 2]) == Array(expected[0..<playedAtDrop * 2]))
        #expect(Array(played.samples[(playedAtDrop * 2)...]) == signal.samples(from: 0, count: 24_000))
        #expect(played.runs.last?.firstFrame == playedAtDrop)
        #expect(played.runs.count >= 2)
    }
}
