import ALSATestbed
import Glibc
import TestProcess
import TestSupport
import Testing

/// The reference for synchronized multi-room playback: Debian's real snapserver and two real snapclients,
/// each on its own paced device, one clock 50 ppm fast and one 50 ppm slow. The timelines of the two
/// devices say when each tone burst left each "speaker"; snapclient keeps them within a millisecond.
@Suite(.serialized) struct SnapclientReferenceTests {
    static let available = SnapServer.isInstalled && access(SnapClient.program, X_OK) == 0
    let dir = TemporaryDirectory()

    @Test(.enabled(if: available, "snapserver and snapclient are installed"), .timeLimit(.minutes(2)))
    func twoSnapclientsAtPlusAndMinus50PPMPlayBurstsWithin1Millisecond() async throws {
        let server = try await SnapServer.start(codec: "pcm", bufferMs: 400, sources: [.pipe(name: "pcm")])
        let alsa = dir.file("asound.conf")
        let players = [("ref-a", 50.0), ("ref-b", -50.0)]
        try TestPCMConfig.write(
            players.map { name, ppm in
                .paced(name: name, PacedPCMOptions(outfile: dir.file("\(name).raw"), driftPPM: ppm, timeline: dir.file("\(name).timeline")))
            }, to: alsa)
        let clients = try players.map { name, _ in
            try SnapClient.start(port: server.streamPort, id: name, pcm: name, alsaConfig: alsa, logsIn: dir)
        }
        let signal = ToneBurstSignal()
        let frames = 20 * signal.sampleRate
        let start = PlayedBurst.now()
        let feed = try server.feed("pcm") { first, count in
            first < frames ? signal.samples(from: first, count: min(count, frames - first)) : nil
        }
        #expect(await feed.finish(timeout: .seconds(60)), "the feed ended; snapserver's log:\n\(server.log)")
        try await Task.sleep(for: .seconds(1))  // the last burst leaves the 400 ms buffer
        for client in clients { await client.stop() }
        await server.stop()
        let logs = clients.map { "\($0.name):\n\($0.log)" }.joined(separator: "\n")

        // Bursts in the first 3 s are left out: snapclient's sync settles first.
        let bursts = try players.map { name, _ in
            PlayedBurst.find(in: try PlayedTimeline(outfile: dir.file("\(name).raw"), timeline: dir.file("\(name).timeline"), channels: 2))
        }
        let offsets = PlayedBurst.offsets(bursts[0], bursts[1], after: start + 3e9)
        // The reference figure the product is compared with.
        print("snapclient vs snapclient at ±50 ppm: \(PlayedBurst.summary(offsets))")
        #expect(offsets.count >= 14, "bursts both played after 3 s: \(offsets); \(logs)")
        #expect(offsets.allSatisfy { abs($0) < 1 }, "ref-a minus ref-b per burst (ms): \(offsets)")
    }
}
