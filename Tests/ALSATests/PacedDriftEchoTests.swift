import ALSA
import ALSATestbed
import TestProcess
import TestSupport
import Testing

/// A linked capture hears a drifted playback on the playback's clock: the echo path maps capture time to
/// playback frames with the drifted rate, so bursts a period apart on a 10 % fast speaker arrive 1/1.1 of
/// a period apart at an exact mic.
@Suite(.serialized) struct PacedDriftEchoTests {
    let dir = TemporaryDirectory()

    @Test func echoOfAFastPlaybackArrivesOnItsClock() throws {
        let config = dir.file("asound.conf")
        try TestPCMConfig.write(
            [
                .paced(name: "spk", PacedPCMOptions(link: "room", driftPPM: 100_000)),
                .paced(name: "mic", PacedPCMOptions(link: "room", echoGain: 1))
            ], to: config)
        let format = PCMConfiguration(sampleRate: 16_000, channels: 1, periodMicroseconds: 10_000, periods: 20)
        let spk = try PCM(device: PCMDevice(name: "spk", configFile: config), stream: .playback, configuration: format)
        let mic = try PCM(device: PCMDevice(name: "mic", configFile: config), stream: .capture, configuration: format)
        let signal = ToneBurstSignal(sampleRate: 16_000, channels: 1, periodSeconds: 0.25, firstBurstSeconds: 0.1)
        // The speaker consumes 176 frames per 160 captured: write a little more, its buffer absorbs it.
        let chunk = 180
        var heard: [Int16] = []
        var played = 0
        var period = [Int16](repeating: 0, count: mic.parameters.periodSamples)
        while heard.count < 16_000 * 2 {
            let samples = signal.samples(from: played, count: chunk)
            try samples.withUnsafeBufferPointer { try spk.write($0) }
            played += chunk
            if spk.state == .running {
                try period.withUnsafeMutableBufferPointer { try mic.read(into: $0) }
                heard += period
            }
        }
        let onsets = ToneOnsets(minimumSpacing: 2_000).onsets(in: heard)
        try #require(onsets.count >= 5, "echo onsets \(onsets)")
        for (a, b) in zip(onsets, onsets.dropFirst()) {
            #expect(abs((b - a) - 4_000 / 1.1) < 2, "echo bursts \(b - a) frames apart")
        }
    }
}
