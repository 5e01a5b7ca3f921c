import Glibc
import TestSupport
import Testing

@testable import EchoControl

private func periodicity(_ sample: (Int) -> Float) -> Float {
    let meter = PeriodicityMeter(length: 512, sampleRate: 16000)
    for i in 0..<meter.length {
        let hann = 0.5 - 0.5 * cosf(2 * .pi * (Float(i) + 0.5) / Float(meter.length))
        meter.input[i] = sample(i) * hann
    }
    return meter.measure()
}

@Test func aVoicedSoundIsPeriodicAndNoiseIsNot() {
    // Decaying glottal pulses at 125 Hz, as the chain tests make their voices.
    var glottis: Float = 0
    let voiced = periodicity { i in
        glottis = 0.7 * glottis + (i % 128 == 0 ? 9000 : 0)
        return glottis
    }
    #expect(voiced > 0.6)
    #expect(periodicity { i in 3000 * sinf(2 * .pi * 210 * Float(i) / 16000) } > 0.8)

    var white = CaptureChainTestSignals.White(seed: 4)
    var fan: Float = 0
    let rush = periodicity { _ in
        fan = 0.8 * fan + white.next()
        return 300 * fan
    }
    #expect(rush < NearEndVerdicts.Tuning.voicedPeriodicity, "a fan's rush measured \(rush)")
    #expect(periodicity { _ in 0 } == 0)
}

@Test func aMotorsLowHumUnderItsRushIsNotVoicedAboveTheHighPass() {
    // A humming hood as room_noise.py makes it: a fan's rush and a 110 Hz blade-pass tone with four
    // harmonics, as loud as the rush. The tone's fundamental and first harmonic lie under 300 Hz.
    func hood(highPassHz: Float) -> Float {
        var white = CaptureChainTestSignals.White(seed: 4)
        var fan: Float = 0
        let meter = PeriodicityMeter(length: 512, sampleRate: 16000, highPassHz: highPassHz)
        for i in 0..<meter.length {
            fan = 0.8 * fan + white.next()
            var tone: Float = 0
            for k in 1...5 { tone += sinf(2 * .pi * 110 * Float(k) * Float(i) / 16000 + Float(k)) / Float(k) }
            let hann = 0.5 - 0.5 * cosf(2 * .pi * (Float(i) + 0.5) / Float(meter.length))
            meter.input[i] = (300 * fan + 600 * tone) * hann
        }
        return meter.measure()
    }
    let filtered = hood(highPassHz: 300), unfiltered = hood(highPassHz: 1)
    #expect(filtered < NearEndVerdicts.Tuning.voicedPeriodicity, "above 300 Hz the hood measured \(filtered)")
    #expect(unfiltered > NearEndVerdicts.Tuning.voicedPeriodicity, "the whole band measured \(unfiltered)")
}

@Test func theMeasureKeepsItsBestLagAndEveryLagsCorrelation() {
    // Glottal pulses at 125 Hz: one period is 128 samples.
    let meter = PeriodicityMeter(length: 512, sampleRate: 16000)
    var glottis: Float = 0
    for i in 0..<meter.length {
        glottis = 0.7 * glottis + (i % 128 == 0 ? 9000 : 0)
        meter.input[i] = glottis * (0.5 - 0.5 * cosf(2 * .pi * (Float(i) + 0.5) / Float(meter.length)))
    }
    let best = meter.measure()
    #expect(abs(meter.bestLag - 128) <= 1, "best lag \(meter.bestLag)")
    #expect(meter.correlation(near: 128, slack: 2) == best)
    #expect(meter.correlation(near: 100, slack: 3) < 0.5 * best, "a period 22 % shorter measured \(meter.correlation(near: 100, slack: 3))")
    #expect(meter.correlation(near: 1000, slack: 4) == 0, "no pitch period lies there")
}
