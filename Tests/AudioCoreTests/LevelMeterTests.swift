import Testing

@testable import AudioCore

@Suite struct LevelMeterTests {
    @Test func sineAndSquareLevels() {
        let sine = AudioTestSignals.sine(frames: 4_800, channels: 2, amplitude: 32_767)
        sine.withUnsafeBufferPointer {
            #expect(abs(LevelMeter.rmsDBFS($0) - -3.01) < 0.01)
            #expect(abs(LevelMeter.peakDBFS($0)) < 0.01)
        }
        let square = (0..<480).map { $0 % 48 < 24 ? Int16.max : Int16.min }
        square.withUnsafeBufferPointer { #expect(abs(LevelMeter.rmsDBFS($0)) < 0.01) }
        [Int16](repeating: 0, count: 10).withUnsafeBufferPointer { #expect(LevelMeter.rmsDBFS($0) == Decibels.floor) }
    }

    @Test func windowsPublishOnlyWhenComplete() {
        var meter = LevelMeter(format: AudioFormat(sampleRate: 48_000, channels: 2), windowMilliseconds: 10)
        let loud = AudioTestSignals.sine(frames: 480, channels: 2, amplitude: 3_277)
        let quiet = AudioTestSignals.sine(frames: 480, channels: 2, amplitude: 328)
        loud.withUnsafeBufferPointer { meter.process(UnsafeBufferPointer(rebasing: $0[0..<500])) }
        #expect(meter.windows == 0)
        loud.withUnsafeBufferPointer { meter.process(UnsafeBufferPointer(rebasing: $0[500...])) }
        #expect(meter.windows == 1)
        #expect(abs(meter.rmsDBFS - (-20 - 3.01)) < 0.05)
        quiet.withUnsafeBufferPointer { meter.process($0) }
        #expect(meter.windows == 2)
        #expect(abs(meter.rmsDBFS - (-40 - 3.01)) < 0.1)
        #expect(abs(meter.peakDBFS - -40) < 0.1)
    }

    @Test func envelopeFollowsAttackAndRelease() {
        let format = AudioFormat(sampleRate: 48_000, channels: 1)
        var follower = EnvelopeFollower(format: format, attackMilliseconds: 1, releaseMilliseconds: 20)
        let step = [Int16](repeating: 16_384, count: 4_800) + [Int16](repeating: 0, count: 4_800)
        let env = follower.envelopeDBFS(of: step)
        // One time constant after the step: 1 - 1/e of the way up; after 10: settled.
        #expect(abs(env[47] - Decibels.dBFS(16_384 * 0.632)) < 0.1)
        #expect(abs(env[4_799] - Decibels.dBFS(16_384)) < 0.01)
        // 20 ms after the drop: 1/e, i.e. -8.69 dB.
        #expect(abs(env[4_799 + 960] - (Decibels.dBFS(16_384) - 8.69)) < 0.1)
    }
}
