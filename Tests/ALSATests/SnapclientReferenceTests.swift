import ALSATestbed
import Glibc
import TestProcess
import TestSupport
import Testing

/// The reference for synchronized multi-room playback: Debian's real snapserver and two real snapclients,
/// each on its own paced device, one clock 50 ppm fast and one 50 ppm slow. The timelines of the two
/// devices say when each tone burst left each "speaker"; snapclient keeps them within a millisecond.
@Suite(.serialized) struct SnapclientReferenceTests {
    static let available = access("/usr/bin/snapserver", X_OK) == 0 && access("/usr/bin/snapclient", X_OK) == 0
    let dir = TemporaryDirectory()

    @Test(.enabled(if: available, "snapserver and snapclient are installed"), .timeLimit(.minutes(2)))
    func twoSnapclientsAtPlusAndMinus50PPMPlayBurstsWithin1Millisecond() async throws {
        // Held while the test runs, so no other test's fresh port is one of these; snapserver binds them
        // anyway (SO_REUSEADDR on both sides, and the reservations never listen).
        let control = try ReservedPort.fresh(), stream = try ReservedPort.fresh()
        _ = dir.write("none.conf", "")
        let fifo = dir.file("a.fifo")
        let server = try ServerProcess(
            [
                "/usr/bin/snapserver", "-c", dir.file("none.conf"), "--server.datadir=\(dir.path)", "--logging.sink=stderr",
                "--http.enabled=false", "--tcp.bind_to_address=127.0.0.1", "--tcp.port=\(control.port)",
                "--stream.bind_to_address=127.0.0.1", "--stream.port=\(stream.port)", "--stream.buffer=400", "--stream.codec=pcm",
                "--stream.source=pipe://\(fifo)?name=pcm&sampleformat=48000:16:2&mode=create"
            ], name: "snapserver", logsIn: dir)
        let feeder = PacedFifoWriter()
        try await server.waitForIt(to: "create its pipe", within: .seconds(10)) { feeder.open(fifo) }

        let alsa = dir.file("asound.conf")
        let players = [("ref-a", 50.0), ("ref-b", -50.0)]
        try TestPCMConfig.write(
            players.map { name, ppm in
                .paced(
                    name: name,
                    PacedPCMOptions(outfile: dir.file("\(name).raw"), driftPPM: ppm, timeline: dir.file("\(name).timeline")))
            }, to: alsa)
        let clients = try players.map { name, _ in
            try SnapClient.start(port: stream.port, id: name, pcm: name, alsaConfig: alsa, logsIn: dir)
        }

        let signal = ToneBurstSignal()
        let fed: Double
        do { fed = try await feeder.feed(signal, seconds: 20) } catch {
            throw ServerProcessError(description: "\(error); snapserver's log:\n\(server.log)")
        }
        try await Task.sleep(for: .seconds(1))  // the last burst leaves the 400 ms buffer
        for client in clients { await client.stop() }
        await server.stop()
        let logs = clients.map { "\($0.name):\n\($0.log)" }.joined(separator: "\n")

        // Each burst is told by when it entered the pipe: about 400 ms (the stream buffer) before it plays.
        // Bursts in the first 3 s are left out: snapclient's sync settles first.
        let settled = fed + 3e9
        var onsets: [[Int: Double]] = []
        for (name, _) in players {
            let played = try PlayedTimeline(outfile: dir.file("\(name).raw"), timeline: dir.file("\(name).timeline"), channels: 2)
            var byBurst: [Int: Double] = [:]
            for frame in ToneOnsets().onsets(in: played.channel(0)) {
                guard let time = played.monotonicNanoseconds(ofFrame: frame) else { continue }
                let fedFrame = (time - fed - 0.4e9) / 1e9 * Double(signal.sampleRate)
                let burst = Int(((fedFrame - Double(signal.firstBurstFrame)) / Double(signal.periodFrames)).rounded())
                if time > settled { byBurst[burst] = time }
            }
            onsets.append(byBurst)
        }
        let common = onsets[0].keys.filter { onsets[1][$0] != nil }.sorted()
        let signed = common.map { (onsets[0][$0]! - onsets[1][$0]!) / 1_000 }  // µs, + when ref-a is late
        let spreads = signed.map(abs)
        let sorted = spreads.sorted()
        let median = sorted.isEmpty ? .nan : sorted[sorted.count / 2], worst = sorted.last ?? .nan
        // The reference figure the product is compared with.
        print("snapclient vs snapclient at ±50 ppm: \(spreads.count) bursts, spread median \(median) µs, max \(worst) µs")
        print("ref-a minus ref-b per burst (µs): \(signed.map { Int($0.rounded()) })")
        #expect(common.count >= 14, "bursts both played after 3 s: \(common); \(logs)")
        #expect(worst < 1_000, "ref-a minus ref-b per burst (µs): \(signed)")
    }
}
