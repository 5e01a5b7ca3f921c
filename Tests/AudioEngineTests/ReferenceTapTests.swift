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

    @Test func stereoIsMixedToMonoAndExtraDelayShiftsTheReference() throws {
        let tap = try ReferenceTap(sampleRate: 1_000)
        let stereo: [Int16] = (0..<20).flatMap { [Int16($0 * 2), 0] }  // mono value = index
        stereo.withUnsafeBufferPointer { tap.playbackWrote($0, channels: 2, delayFrames: 0, atNanoseconds: 20_000_000) }
        tap.extraDelayFrames = 3
        var out = [Int16](repeating: 0, count: 4)
        out.withUnsafeMutableBufferPointer { _ = tap.pull(into: $0, firstFrameNanoseconds: 10_000_000) }
        #expect(out == [7, 8, 9, 10])
    }

    /// 48 kHz stereo playback into a 16 kHz tap: the converter's delay is compensated, so a tone
    /// burst played at a known instant comes back from `pull` at that instant (±1 sample).
    @Test func playbackAtAnotherRateIsConvertedAndStaysAligned() throws {
        let tap = try ReferenceTap(sampleRate: 16_000, playbackRate: 48_000)
        let period = 480  // 10 ms at 48 kHz
        var buffer = [Int16](repeating: 0, count: period * 2)
        // 200 ms of silence, then a 1 kHz burst from playback frame 9600 on, 10 ms periods, 20 ms queued.
        for p in 0..<40 {
            for f in 0..<period {
                let frame = p * period + f
                let v: Int16 = frame >= 9_600 ? Int16(12_000 * sin(2 * Double.pi * 1_000 * Double(frame) / 48_000)) : 0
                buffer[2 * f] = v
                buffer[2 * f + 1] = v
            }
            let writtenEnd = Int64((p + 1) * period)
            // After writing, 960 frames (20 ms) are queued: frame n is heard at (n - end + 960) / 48 kHz after now.
            let now = (writtenEnd - 960) * 1_000_000_000 / 48_000
            buffer.withUnsafeBufferPointer { tap.playbackWrote($0, channels: 2, delayFrames: 960, atNanoseconds: now) }
        }
        // Ask for 20 ms around the burst onset: playback frame 9600 is heard at 200 ms.
        var out = [Int16](repeating: 0, count: 320)
        out.withUnsafeMutableBufferPointer { _ = tap.pull(into: $0, firstFrameNanoseconds: 190_000_000) }
        let onset = try #require(out.firstIndex { abs(Int($0)) > 2_000 })
        #expect(abs(onset - 160) <= 2, "burst onset at sample \(onset) of the pull, expected 160 (200 ms)")
    }
}
