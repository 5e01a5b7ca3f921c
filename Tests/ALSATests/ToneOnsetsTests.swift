import TestSupport
import Testing

/// The onset detector the playback timing tests rely on: exact on a clean burst, whatever its level,
/// and within a sample under noise.
struct ToneOnsetsTests {
    private func mono(_ signal: ToneBurstSignal, frames: Int) -> [Int16] { signal.samples(from: 0, count: frames) }

    @Test(arguments: [(1_000.0, 0.5), (2_000.0, 0.5), (1_000.0, 0.5 * 0.0316), (2_000.0, 0.5 * 0.0316)])
    func findsEachBurstOnItsFirstSample(frequency: Double, amplitude: Double) {
        let signal = ToneBurstSignal(channels: 1, frequency: frequency, amplitude: amplitude)
        let onsets = ToneOnsets().onsets(in: mono(signal, frames: 48_000 * 4))
        #expect(onsets == (0..<4).map { Double(signal.burstStartFrame($0)) })
    }

    @Test func noiseAndAnOffGridStartMoveTheOnsetByLessThanTwoSamples() {
        // −30 dB bursts in ±20 LSB noise, shifted by 7 samples from the signal's grid.
        let signal = ToneBurstSignal(channels: 1, amplitude: 0.5 * 0.0316)
        var state: UInt32 = 1
        let noisy = ([Int16](repeating: 0, count: 7) + mono(signal, frames: 48_000 * 3)).map { sample -> Int16 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return sample &+ Int16(Int(state >> 16) % 41 - 20)
        }
        let onsets = ToneOnsets().onsets(in: noisy)
        let expected = (0..<3).map { Double(signal.burstStartFrame($0) + 7) }
        #expect(onsets.count == 3)
        for (found, truth) in zip(onsets, expected) { #expect(abs(found - truth) < 2, "\(found) vs \(truth)") }
    }
}
