import AudioEngine
import Testing

@Suite struct ReferenceTapTests {
    /// Playback writes samples 0, 1, 2, ... (value = index) with a device delay; capture asks for
    /// the instants those samples are heard.
    @Test func pullReturnsWhatWasHeardAtTheCaptureInstant() {
        let tap = ReferenceTap(sampleRate: 1_000)  // 1 sample per ms keeps the arithmetic readable
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

    @Test func stereoIsMixedToMonoAndExtraDelayShiftsTheReference() {
        let tap = ReferenceTap(sampleRate: 1_000)
        let stereo: [Int16] = (0..<20).flatMap { [Int16($0 * 2), 0] }  // mono value = index
        stereo.withUnsafeBufferPointer { tap.playbackWrote($0, channels: 2, delayFrames: 0, atNanoseconds: 20_000_000) }
        tap.extraDelayFrames = 3
        var out = [Int16](repeating: 0, count: 4)
        out.withUnsafeMutableBufferPointer { _ = tap.pull(into: $0, firstFrameNanoseconds: 10_000_000) }
        #expect(out == [7, 8, 9, 10])
    }
}
