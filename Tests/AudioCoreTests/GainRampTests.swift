import Testing

@testable import AudioCore

@Suite struct GainRampTests {
    @Test func linearRampHitsEveryStepAndTheTargetExactly() {
        var ramp = GainRamp(gain: 1)
        ramp.ramp(to: 0, frames: 100, shape: .linear)
        var samples = [Int16](repeating: 10_000, count: 150)
        samples.withUnsafeMutableBufferPointer { ramp.apply(to: $0, channels: 1) }
        for k in 1...100 {
            #expect(samples[k - 1] == Int16((10_000 * (1 - Double(k) / 100)).rounded(.toNearestOrEven)))
        }
        #expect(samples[99...].allSatisfy { $0 == 0 })
        #expect(!ramp.isRamping && ramp.gain == 0)
    }

    @Test func decibelRampIsStraightInDecibels() {
        var ramp = GainRamp(gain: 1)
        ramp.ramp(to: Decibels.gain(-20), frames: 4_800, shape: .decibel)
        var gains: [Float] = []
        for _ in 0..<4_800 { gains.append(ramp.next()) }
        #expect(abs(Decibels.decibels(gain: gains[2_399]) - -10) < 0.01)
        #expect(abs(Decibels.decibels(gain: gains[1_199]) - -5) < 0.01)
        #expect(gains[4_799] == Decibels.gain(-20))
        // Click-free: the gain never moves more than one even step (ln 10 / 4800 relative) per frame.
        var maxStep: Float = 0
        var previous: Float = 1
        for g in gains {
            maxStep = max(maxStep, abs(g - previous))
            previous = g
        }
        #expect(maxStep < 2.303 / 4_800 * 1.01)
    }

    @Test func outputIsTheSameHoweverTheAudioIsSplit() {
        let input = AudioTestSignals.sine(frames: 6_000, channels: 2, amplitude: 30_000)
        func run(_ sizes: [Int]) -> [Int16] {
            var ramp = GainRamp(gain: 0.8)
            ramp.ramp(to: 0.05, frames: 4_321, shape: .decibel)
            var out = input
            out.withUnsafeMutableBufferPointer { buffer in
                var frame = 0
                var i = 0
                while frame < 6_000 {
                    let n = min(sizes[i % sizes.count], 6_000 - frame)
                    ramp.apply(to: UnsafeMutableBufferPointer(rebasing: buffer[(frame * 2)..<((frame + n) * 2)]), channels: 2)
                    frame += n
                    i += 1
                }
            }
            return out
        }
        let whole = run([6_000])
        #expect(run([1, 7, 480, 13, 1_024]) == whole)
        #expect(run([64]) == whole)
    }

    @Test func fullScaleDuckMovesAtMostSixteenLSBPerFrame() {
        var ramp = GainRamp(gain: 1)
        ramp.ramp(to: Decibels.gain(-20), frames: 4_800)
        var dc = AudioTestSignals.constant(32_767, frames: 4_800, channels: 2)
        dc.withUnsafeMutableBufferPointer { ramp.apply(to: $0, channels: 2) }
        var maxJump = 0
        for f in 1..<4_800 {
            maxJump = max(maxJump, abs(Int(dc[f * 2]) - Int(dc[(f - 1) * 2])))
            #expect(dc[f * 2] == dc[f * 2 + 1])
        }
        #expect(maxJump <= 16)
        #expect(dc[4_799 * 2] == 3_277)
    }

    @Test func applySaturates() {
        var ramp = GainRamp(gain: 4)
        var samples: [Int16] = [20_000, -20_000, 100, -32_768]
        samples.withUnsafeMutableBufferPointer { ramp.apply(to: $0, channels: 1) }
        #expect(samples == [32_767, -32_768, 400, -32_768])
    }

    @Test func skipKeepsTheRampOnTime() {
        var a = GainRamp(gain: 1)
        var b = GainRamp(gain: 1)
        a.ramp(to: 0.25, frames: 1_000)
        b.ramp(to: 0.25, frames: 1_000)
        a.skip(frames: 300)
        for _ in 0..<300 { _ = b.next() }
        #expect(abs(a.next() - b.next()) < 1e-6)
        a.skip(frames: 10_000)
        #expect(a.gain == 0.25 && !a.isRamping)
    }

    @Test func rampsToAndFromSilenceFallBackToLinear() {
        var ramp = GainRamp(gain: 0)
        ramp.ramp(to: 1, frames: 10, shape: .decibel)
        let gains = (0..<10).map { _ in ramp.next() }
        #expect(abs(gains[4] - 0.5) < 1e-6)
        #expect(gains[9] == 1)
    }
}
