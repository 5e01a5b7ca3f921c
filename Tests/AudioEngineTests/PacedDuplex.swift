import ALSA
import ALSATestbed
import AudioEngine
import TestProcess
import Testing

/// Mono 16 kHz, four 10 ms periods.
let mono16k = PCMConfiguration(sampleRate: 16_000, channels: 1, periodMicroseconds: 10_000, periods: 4)

/// Writes the paced speaker `spk` and mic `mic` to `config`, on an acoustic link of their own: the mic hears
/// the speaker at half level `echoDelayMilliseconds` later.
func writeLinkedSpeakerAndMic(to config: String, in dir: TemporaryDirectory, echoDelayMilliseconds: Double = 30) throws {
    // Links are process-wide by name: a unique one keeps parallel tests out of each other's room.
    let room = "room-" + dir.path.split(separator: "/").last!
    try TestPCMConfig.write(
        [
            .paced(name: "spk", PacedPCMOptions(link: room)),
            .paced(name: "mic", PacedPCMOptions(link: room, echoGain: 0.5, echoDelayMilliseconds: echoDelayMilliseconds))
        ], to: config)
}

/// Full duplex through `tap`: `config`'s `spk` plays `source` (20 ms x 3), its `mic` captures (10 ms x 4) from
/// once playback runs until `done` holds; `process` gets each captured period and the playback loop. Returns
/// both loops, stopped.
func runDuplex(
    config: String, tap: ReferenceTap, source: SignalSource, timeout: Duration = hangTimeout,
    until done: (CaptureLoop) -> Bool, process: @escaping @Sendable (CapturedPeriod, PlaybackLoop) -> Void
) async throws -> (playback: PlaybackLoop, capture: CaptureLoop) {
    let playback = PlaybackLoop(
        configuration: PlaybackLoopConfiguration(
            device: PCMDevice(name: "spk", configFile: config),
            pcm: PCMConfiguration(sampleRate: 16_000, channels: 1, periodMicroseconds: 20_000, periods: 3),
            referenceTap: tap, fifoPriority: nil)
    ) { source.render($0) }
    let capture = CaptureLoop(
        configuration: CaptureLoopConfiguration(
            device: PCMDevice(name: "mic", configFile: config), pcm: mono16k, referenceTap: tap, fifoPriority: nil)
    ) { [playback] period in process(period, playback) }
    try playback.start()
    #expect(await waitUntil { playback.status.frames > 0 })
    try capture.start()
    #expect(await waitUntil(timeout: timeout) { done(capture) })
    capture.stop()
    playback.stop()
    return (playback, capture)
}

extension UnsafeMutableBufferPointer where Element: ExpressibleByIntegerLiteral {
    /// Allocated and zeroed: storage the realtime thread fills without allocating.
    static func zeroed(capacity: Int) -> Self {
        let buffer = allocate(capacity: capacity)
        buffer.initialize(repeating: 0)
        return buffer
    }
}
