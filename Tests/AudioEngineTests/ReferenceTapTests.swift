import AudioEngine
import Glibc
import Testing

@Suite struct ReferenceTapTests {
    /// Playback writes samples 0, 1, 2, ... (value = index) with a device delay; capture asks for
    /// the instants those samples are heard.
    @Test func pullReturnsWhatWasHeardAtTheCaptureInstant() throws {
        let tap = try ReferenceTap(sampleRate: 1_000)  // 1 sample per ms keeps the arithmetic readable
        var period = [Int16](repeating: 0, count: 10)
        var out = [Int16](repeating: -1, count: 5)
        // Nothing played yet: zeros.
        #expect(out.withUnsafeMutableBufferPointer { tap.pull(into: $0, firstFrameNanoseconds: 0) } == 0)
        #expect(out == [0, 0, 0, 0, 0])

        // Write 0..<40 in four periods; after the last write, 30 samples are still queued at t = 100 ms:
        // sample 10 is heard at 100 ms, so sample i at (90 + i) ms.
        for p in 0..<4 {
            for i in 0..<10 { period[i] = Int16(p * 10 + i) }
            period.withUnsafeBufferPointer {
                tap.playbackWrote($0, channels: 1, delayFrames: 30, atNanoseconds: Int64(70 + p * 10) * 1_000_000)
            }
        }
        #expect(out.withUnsafeMutableBufferPointer { tap.pull(into: $0, firstFrameNanoseconds: 105_000_000) } == 5)
        #expect(out == [15, 16, 17, 18, 19])
        // The next pull continues contiguously.
        #expect(out.withUnsafeMutableBufferPointer { tap.pull(into: $0, firstFrameNanoseconds: 110_000_000) } == 5)
        #expect(out == [20, 21, 22, 23, 24])
        // Samples not written yet are zero.
        #expect(out.withUnsafeMutableBufferPointer { tap.pull(into: $0, firstFrameNanoseconds: 127_000_000) } == 3)
        #expect(out == [37, 38, 39, 0, 0])
    }

    /// A playback underrun: run 1 plays samples 0..<40 (heard 90..<130 ms), the device runs dry, and
    /// run 2's samples 40..<70 are queued at 160 ms but heard only once the stream starts (the third
    /// write reaches the start threshold), sample 40 at 160 ms. Each run's samples come back for the
    /// instants they were heard and the gap is silence, whenever the capture side asks.
    @Test func aRestartedStreamIsMappedToTimeRunByRun() throws {
        let tap = try ReferenceTap(sampleRate: 1_000)
        var period = [Int16](repeating: 0, count: 10)
        func write(_ p: Int, run: Int, clock: PlaybackClock?) {
            for i in 0..<10 { period[i] = Int16(p * 10 + i + 1) }  // value = index + 1: never silent
            period.withUnsafeBufferPointer { tap.playbackWrote($0, channels: 1, run: run, clock: clock) }
        }
        for p in 0..<4 { write(p, run: 1, clock: PlaybackClock(delayFrames: 30, nanoseconds: Int64(70 + p * 10) * 1_000_000)) }
        var out = [Int16](repeating: -1, count: 10)
        func pull(at milliseconds: Int64) -> Int {
            out.withUnsafeMutableBufferPointer { tap.pull(into: $0, firstFrameNanoseconds: milliseconds * 1_000_000) }
        }
        // Run 2 is queued but not started: its samples are not heard yet.
        write(4, run: 2, clock: nil)
        write(5, run: 2, clock: nil)
        #expect(pull(at: 125) == 5)
        #expect(out == [36, 37, 38, 39, 40, 0, 0, 0, 0, 0])
        write(6, run: 2, clock: PlaybackClock(delayFrames: 30, nanoseconds: 160_000_000))
        // Across the restart: the end of the gap, then run 2 from its start; not run 1's tail again.
        #expect(pull(at: 155) == 5)
        #expect(out == [0, 0, 0, 0, 0, 41, 42, 43, 44, 45])
        #expect(pull(at: 165) == 10)
        #expect(out == [46, 47, 48, 49, 50, 51, 52, 53, 54, 55])
        // A capture period from before the gap, read late: run 1 as it was heard then.
        #expect(pull(at: 120) == 10)
        #expect(out == [31, 32, 33, 34, 35, 36, 37, 38, 39, 40])
    }

    /// The read position is whole samples: the first pull of a stretch rounds the measured position,
    /// later pulls read on contiguously while the measurement stays within the resync threshold.
    /// `alignmentResidual` says how far (unrounded) the measurement was from what was read.
    @Test func alignmentResidualIsTheMeasuredPositionMinusTheSampleRead() throws {
        let tap = try ReferenceTap(sampleRate: 1_000)
        let period = (0..<40).map { Int16($0) }  // value = index; sample i heard at (90 + i) ms
        period.withUnsafeBufferPointer { tap.playbackWrote($0, channels: 1, delayFrames: 30, atNanoseconds: 100_000_000) }
        var out = [Int16](repeating: 0, count: 5)
        func pull(atMicroseconds us: Int64) { out.withUnsafeMutableBufferPointer { _ = tap.pull(into: $0, firstFrameNanoseconds: us * 1_000) } }
        pull(atMicroseconds: 105_400)  // measured 15.4: reads from 15
        #expect(out == [15, 16, 17, 18, 19])
        #expect(abs(tap.alignmentResidual - 0.4) < 1e-9)
        pull(atMicroseconds: 110_700)  // measured 20.7 (rounds to 21), within the threshold: reads on from 20
        #expect(out == [20, 21, 22, 23, 24])
        #expect(abs(tap.alignmentResidual - 0.7) < 1e-9)
        pull(atMicroseconds: 120_600)  // measured 30.6, 5 samples past the contiguous 25: jumps to 31
        #expect(out == [31, 32, 33, 34, 35])
        #expect(abs(tap.alignmentResidual + 0.4) < 1e-9)
    }

    @Test func stereoIsMixedToMonoAndExtraDelayShiftsTheReference() throws {
        let tap = try ReferenceTap(sampleRate: 1_000)
        let stereo: [Int16] = (0..<20).flatMap { [Int16($0 * 2), 0] }  // mono value = index
        stereo.withUnsafeBufferPointer { tap.playbackWrote($0, channels: 2, delayFrames: 0, atNanoseconds: 20_000_000) }
        tap.extraDelayFrames = 3
        var out = [Int16](repeating: 0, count: 4)
        out.withUnsafeMutableBufferPointer { _ = tap.pull(into: $0, firstFrameNanoseconds: 10_000_000) }
        #expect(out == [7, 8, 9, 10])
    }

    /// 48 kHz stereo playback into `tap`: 200 ms of silence, then a 1 kHz burst from playback frame 9600
    /// on, in `periods` periods of `period` frames, with `queued` frames in the device after each write.
    /// Returns 20 ms pulled around the burst's onset, which is heard at 200 ms (sample 160 of the pull).
    private func pullAroundABurst(_ tap: ReferenceTap, period: Int, periods: Int, queued: Int) -> [Int16] {
        var buffer = [Int16](repeating: 0, count: period * 2)
        for p in 0..<periods {
            for f in 0..<period {
                let frame = p * period + f
                let v: Int16 = frame >= 9_600 ? Int16(12_000 * sin(2 * Double.pi * 1_000 * Double(frame) / 48_000)) : 0
                buffer[2 * f] = v
                buffer[2 * f + 1] = v
            }
            // Frame n is heard at (n - end + queued) / 48 kHz after now.
            let writtenEnd = Int64((p + 1) * period)
            let now = (writtenEnd - Int64(queued)) * 1_000_000_000 / 48_000
            buffer.withUnsafeBufferPointer { tap.playbackWrote($0, channels: 2, delayFrames: queued, atNanoseconds: now) }
        }
        var out = [Int16](repeating: 0, count: 320)
        out.withUnsafeMutableBufferPointer { _ = tap.pull(into: $0, firstFrameNanoseconds: 190_000_000) }
        return out
    }

    /// 48 kHz stereo playback into a 16 kHz tap: the converter's delay is compensated, so a tone
    /// burst played at a known instant comes back from `pull` at that instant (±1 sample).
    @Test func playbackAtAnotherRateIsConvertedAndStaysAligned() throws {
        let tap = try ReferenceTap(sampleRate: 16_000, playbackRate: 48_000)
        // 10 ms periods, 20 ms queued.
        let out = pullAroundABurst(tap, period: 480, periods: 40, queued: 960)
        let onset = try #require(out.firstIndex { abs(Int($0)) > 2_000 })
        #expect(abs(onset - 160) <= 2, "burst onset at sample \(onset) of the pull, expected 160 (200 ms)")
    }

    /// A device may grant a longer period than was asked for (alsa-lib's dmix defaults to 1024 frames, against the
    /// 4 × 240 the tap's scratch holds when 5 ms periods were asked for): the whole period is converted
    /// in pieces, so the reference keeps every sample and its timing. The tap once kept only what fit
    /// its scratch, and the burst came back 65 samples (4 ms) off.
    @Test func aLongerPeriodThanTheScratchIsConvertedWhole() throws {
        let tap = try ReferenceTap(sampleRate: 16_000, playbackRate: 48_000, maxPlaybackPeriodFrames: 4 * 240)
        let out = pullAroundABurst(tap, period: 1_024, periods: 12, queued: 2_048)
        let onset = try #require(out.firstIndex { abs(Int($0)) > 2_000 })
        #expect(abs(onset - 160) <= 2, "burst onset at sample \(onset) of the pull, expected 160 (200 ms)")
        let tone = out[(onset + 8)...].map { Double($0) * Double($0) }
        let rms = (tone.reduce(0, +) / Double(tone.count)).squareRoot()
        #expect(rms > 7_000, "the tone after the onset: RMS \(rms), expected ~8500")
    }

    /// The playback loop takes back the last 30 ms it wrote (a paused voice, `snd_pcm_rewind`) and writes
    /// silence instead. The reference must be what the speaker played: the same as a tap that was given
    /// the tone up to where the take-back starts and silence from there, at the same alignment (the
    /// converter's memory blends about a millisecond), never the tone that did not play, nor the past
    /// shifted by what was taken back.
    @Test func framesTakenBackAreReplacedAtTheirInstants() throws {
        let tap = try ReferenceTap(sampleRate: 16_000, playbackRate: 48_000)
        let played = try ReferenceTap(sampleRate: 16_000, playbackRate: 48_000)
        #expect(tap.takeBackGranularity == 3)
        var period = [Int16](repeating: 0, count: 480)
        func write(_ tap: ReferenceTap, toneFrom first: Int?, at milliseconds: Int64) {
            for f in 0..<480 {
                // 1010 Hz: a shift of the past by 30 ms shows.
                period[f] = first.map { Int16(12_000 * sin(2 * Double.pi * 1_010 * Double($0 + f) / 48_000)) } ?? 0
            }
            period.withUnsafeBufferPointer {
                tap.playbackWrote($0, channels: 1, delayFrames: 1_920, atNanoseconds: milliseconds * 1_000_000)
            }
        }
        // 400 ms of tone in 10 ms periods, 40 ms queued (frame f is heard at f / 48 + 30 ms); the last 30 ms
        // of it are taken back and replaced with silence at once.
        for p in 0..<40 { write(tap, toneFrom: 480 * p, at: Int64(10 * p)) }
        tap.playbackTookBack(frames: 1_440)
        for _ in 0..<3 { write(tap, toneFrom: nil, at: 390) }
        // What the speaker played: the tone up to frame 17760 (heard at 400 ms), then silence.
        for p in 0..<40 { write(played, toneFrom: p < 37 ? 480 * p : nil, at: Int64(10 * p)) }
        for t in [Int64(400), 410] {
            write(tap, toneFrom: nil, at: t)
            write(played, toneFrom: nil, at: t)
        }
        var out = [Int16](repeating: 0, count: 640)
        var expected = [Int16](repeating: 0, count: 640)
        _ = out.withUnsafeMutableBufferPointer { tap.pull(into: $0, firstFrameNanoseconds: 380_000_000) }
        _ = expected.withUnsafeMutableBufferPointer { played.pull(into: $0, firstFrameNanoseconds: 380_000_000) }
        // 380-400 ms the tone, from 400 ms silence; the converter blends the 1.5 ms around the take-back point.
        let tone = out[0..<320].map { Double($0) * Double($0) }
        #expect((tone.reduce(0, +) / Double(tone.count)).squareRoot() > 7_000)
        for k in 0..<640 where !(312..<336).contains(k) {
            #expect(abs(Int(out[k]) - Int(expected[k])) < 300, "sample \(k): \(out[k]), played \(expected[k])")
        }
    }
}
