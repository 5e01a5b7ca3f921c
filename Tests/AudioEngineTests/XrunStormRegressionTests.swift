import ALSA
import ALSATestbed
import AudioEngine
import Glibc
import TestProcess
import Testing

/// An xrun storm: the render callback misses its deadline every fourth period for 40 periods (a
/// starved CPU), then behaves. Every underrun is recovered in place (no reopen, no stop), counted
/// and reported as an event, and playing goes on at the device's pace after the storm.
@Suite struct XrunStormRegressionTests {
    let dir = TemporaryDirectory()

    @Test func thePlaybackLoopRidesOutAnXrunStorm() async throws {
        let config = dir.file("asound.conf")
        try TestPCMConfig.write([.paced(name: "spk", PacedPCMOptions(outfile: dir.file("out.raw")))], to: config)
        let source = StormySource(stallEvery: 4, stormPeriods: 40)
        let format = PCMConfiguration(sampleRate: 16_000, channels: 1, periodMicroseconds: 10_000, periods: 4)
        let loop = PlaybackLoop(
            configuration: PlaybackLoopConfiguration(
                device: PCMDevice(name: "spk", configFile: config), pcm: format, fifoPriority: nil)
        ) { source.render($0) }
        try loop.start()
        // 40 storm periods then at least 1 s of calm playing.
        #expect(await waitUntil(timeout: .seconds(60)) { loop.status.xruns >= 5 && loop.status.frames >= 40 * 160 + 16_000 })
        let xrunsAfterStorm = loop.status.xruns
        let framesAfterStorm = loop.status.frames
        #expect(await waitUntil { loop.status.frames >= framesAfterStorm + 8_000 })
        let running = loop.status.isRunning
        loop.stop()
        #expect(running)
        #expect(xrunsAfterStorm >= 5, "\(xrunsAfterStorm) xruns")
        var kinds: [AudioLoopEvent.Kind] = []
        while let event = loop.nextEvent() { kinds.append(event.kind) }
        #expect(kinds.filter { $0 == .xrun }.count >= 5)
        #expect(!kinds.contains(.disconnected), "\(kinds)")
        #expect(kinds.filter { $0 == .opened }.count == 1, "\(kinds)")
    }
}

/// A tone that stalls 30 ms past the 10 ms period every `stallEvery` periods during the storm.
private final class StormySource: @unchecked Sendable {
    let stallEvery: Int
    let stormPeriods: Int
    private var periods = 0
    private var phase = 0

    init(stallEvery: Int, stormPeriods: Int) {
        self.stallEvery = stallEvery
        self.stormPeriods = stormPeriods
    }

    func render(_ period: PlaybackPeriod) {
        periods += 1
        if periods <= stormPeriods, periods % stallEvery == 0 { usleep(60_000) }
        let channels = period.parameters.channels
        for f in 0..<period.parameters.periodFrames {
            phase = (phase + 1) % 32
            let s = Int16(phase < 16 ? 4_000 : -4_000)
            for c in 0..<channels { period.buffer[f * channels + c] = s }
        }
    }
}
