import ALSATestbed
import AudioCore
import Glibc
import TestProcess
import Testing

/// `jarvis-voice dsp`: the capture chain offline on WAV files (what Benchmarks/aec-real scores).
@Suite struct DSPCommandTests {
    /// A 4 s far end (noise) and its echo 10 ms later at half level over a quiet room.
    static func scene() -> (mic: [Int16], reference: [Int16]) {
        let n = 4 * 16000, lag = 160
        let reference = testNoise(count: n, seed: 5, amplitude: 5200)
        let room = testNoise(count: n, seed: 6, amplitude: 17)
        let mic = (0..<n).map { i in (i >= lag ? reference[i - lag] / 2 : 0) + room[i] }
        return (mic, reference)
    }

    static func energy(_ x: ArraySlice<Int16>) -> Double { x.reduce(0) { $0 + Double($1) * Double($1) } + 1 }

    /// `--warm` runs the input once before the written pass: the canceller meets the recording converged,
    /// so the first second (where a fresh canceller is still learning) has the echo removed; the output
    /// keeps the mic's length either way.
    @Test func warmMeetsTheRecordingConverged() async throws {
        let binary = try #require(ChildProcess.builtExecutable("jarvis-voice"), "jarvis-voice is not built next to the tests")
        let directory = TemporaryDirectory()
        let (mic, reference) = Self.scene()
        let (micPath, referencePath) = directory.writeDSPInputs(mic: mic, reference: reference)
        // The linear canceller alone: the suppressor's fresh coupling would hide the difference.
        let config = directory.write("linear.toml", "[dsp]\nresidual_echo_suppressor = false\n")
        var firstSecondDB: [Double] = []
        for warm in [false, true] {
            let out = directory.file(warm ? "warm.wav" : "cold.wav")
            let result = try await ChildProcess.run(
                [
                    binary, "dsp", "--config", config, "--mic", micPath, "--reference", referencePath,
                    "--out", out
                ] + (warm ? ["--warm"] : []))
            #expect(result.status == 0, "\(result.stderr)")
            let output = try WAVFile(bytes: TestFiles.read(out)).samples
            #expect(output.count == mic.count)
            let first = 1600..<16000
            firstSecondDB.append(10 * log10(Self.energy(mic[first]) / Self.energy(output[first])))
        }
        #expect(firstSecondDB[1] > firstSecondDB[0] + 10, "echo removed in the first second, cold and warm: \(firstSecondDB) dB")
    }

    /// `--listen-at`: the written pass runs as between conversations (the canceller adapts, nothing is output)
    /// until then, and as in a conversation after: silent before, the echo removed from the first frame after
    /// as well as by the chain that processed every frame (its canceller the same), and the same length.
    @Test func listenAtMeetsTheConversationAsTheAlwaysOnChainDoes() async throws {
        let binary = try #require(ChildProcess.builtExecutable("jarvis-voice"), "jarvis-voice is not built next to the tests")
        let directory = TemporaryDirectory()
        let (mic, reference) = Self.scene()
        let (micPath, referencePath) = directory.writeDSPInputs(mic: mic, reference: reference)
        var outputs: [[Int16]] = []
        for listen in [nil, "2.5"] {
            let out = directory.file(listen == nil ? "always.wav" : "listen.wav")
            let result = try await ChildProcess.run(
                [binary, "dsp", "--mic", micPath, "--reference", referencePath, "--out", out] + (listen.map { ["--listen-at", $0] } ?? []))
            #expect(result.status == 0, "\(result.stderr)")
            outputs.append(try WAVFile(bytes: TestFiles.read(out)).samples)
        }
        #expect(outputs[1].count == mic.count)
        // Up to the chain's latency (648 samples) before 2.5 s nothing was output.
        #expect(outputs[1][0..<(40_000 - 648)].allSatisfy { $0 == 0 })
        let after = 40_000..<56_000
        let always = 10 * log10(Self.energy(mic[after]) / Self.energy(outputs[0][after]))
        let listening = 10 * log10(Self.energy(mic[after]) / Self.energy(outputs[1][after]))
        #expect(listening > always - 1, "echo removed in the first second of listening: \(listening) dB, always on \(always) dB")
    }

    /// `--suppressor-trace`: one character per frame of what the residual echo suppressor did. A far end with
    /// speech's gaps (noise in 200 ms bursts, 100 ms apart) is `S`/`s`; the same noise played on without them is
    /// `M` once the 2 s rhythm window holds no gap (`m` only where the suppression eased for a talker, and
    /// nobody talks here); after the far end stops, `-`.
    @Test func theSuppressorTraceNamesTheFarEndsRhythm() async throws {
        let binary = try #require(ChildProcess.builtExecutable("jarvis-voice"), "jarvis-voice is not built next to the tests")
        let directory = TemporaryDirectory()
        let rate = 16000, n = 8 * rate, lag = 160
        let noise = testNoise(count: n, seed: 5, amplitude: 5200)
        let burst = rate / 5, period = rate * 3 / 10
        let reference = (0..<n).map { (i: Int) -> Int16 in
            let inGap: Bool = i < 3 * rate && i % period >= burst
            return i >= 7 * rate || inGap ? 0 : noise[i]
        }
        let room = testNoise(count: n, seed: 6, amplitude: 17)
        let mic = (0..<n).map { i in (i >= lag ? reference[i - lag] / 2 : 0) + room[i] }
        let (micPath, referencePath) = directory.writeDSPInputs(mic: mic, reference: reference)
        let tracePath = directory.file("suppressor.txt")
        let result = try await ChildProcess.run([
            binary, "dsp", "--mic", micPath, "--reference", referencePath,
            "--out", directory.file("out.wav"), "--suppressor-trace", tracePath
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let trace = Array(try #require(directory.read("suppressor.txt")))
        #expect(trace.count == (n + 255) / 256, "one character per 16 ms frame of the mic")
        func frames(_ from: Double, _ to: Double) -> String { String(trace[Int(from * 62.5)..<Int(to * 62.5)]) }
        let gapped = frames(1, 2.8), steady = frames(5.5, 6.8), stopped = frames(7.3, 7.9)
        #expect(gapped.allSatisfy { $0 == "S" || $0 == "s" }, "\(gapped)")
        #expect(steady.allSatisfy { $0 == "M" }, "\(steady)")
        #expect(stopped.allSatisfy { $0 == "-" }, "\(stopped)")
    }

    /// `[dsp] match_reference_level`: a reference 20 dB under its echo (a hardware loopback channel) is
    /// raised 8x by default, and left as it is when the key is false.
    @Test func aQuietReferenceIsRaisedUnlessTheConfigSaysNo() async throws {
        let binary = try #require(ChildProcess.builtExecutable("jarvis-voice"), "jarvis-voice is not built next to the tests")
        let directory = TemporaryDirectory()
        let n = 4 * 16000, lag = 160
        let reference = testNoise(count: n, seed: 5, amplitude: 520)
        let mic = (0..<n).map { i in i >= lag ? reference[i - lag] * 10 : 0 }
        let (micPath, referencePath) = directory.writeDSPInputs(mic: mic, reference: reference)
        let off = directory.write("off.toml", "[dsp]\nmatch_reference_level = false\n")
        for (config, gain) in [(nil, "8x"), (off, "1x")] {
            let result = try await ChildProcess.run(
                [
                    binary, "dsp", "--mic", micPath, "--reference", referencePath,
                    "--out", directory.file("out.wav")
                ] + (config.map { ["--config", $0] } ?? []))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("reference gain \(gain),"), "\(result.stderr)")
        }
    }

    /// One owner for the `[dsp]` limits (`CaptureChainLimits`): every value `check-config` accepts, the
    /// chain runs with, and every value just past a limit `check-config` rejects with its line, before
    /// anything starts. The file once accepted `frame_ms = 5`, `echo_tail_ms` up to 2000,
    /// `max_reference_lag_ms` up to 5000 and suppression down to -100 dB, which the chain then refused.
    @Test func theFilesLimitsAreTheChains() async throws {
        let binary = try #require(ChildProcess.builtExecutable("jarvis-voice"), "jarvis-voice is not built next to the tests")
        let directory = TemporaryDirectory()
        let (mic, reference) = Self.scene()
        let (micPath, referencePath) = directory.writeDSPInputs(mic: Array(mic.prefix(16000)), reference: Array(reference.prefix(16000)))
        let accepted = [
            "frame_ms = 4", "frame_ms = 10", "frame_ms = 64\necho_tail_ms = 64", "echo_tail_ms = 16",
            "echo_tail_ms = 1000", "max_reference_lag_ms = 0", "max_reference_lag_ms = 2000",
            "noise_suppress_db = -60", "echo_suppress_db = -90", "echo_suppress_active_db = -90",
            "agc = true\nagc_level = 1", "agc = true\nagc_level = 32767"
        ]
        let rejected = [
            "frame_ms = 5", "frame_ms = 66", "echo_tail_ms = 1001", "frame_ms = 32\necho_tail_ms = 16",
            "max_reference_lag_ms = 2001", "noise_suppress_db = -61", "echo_suppress_db = -91",
            "echo_suppress_active_db = -91", "agc_level = 0"
        ]
        for (index, keys) in (accepted + rejected).enumerated() {
            let config = directory.write("\(index).toml", "[dsp]\n\(keys)\n\n[jarvis]\nurl = \"http://jarvis.lan/ui\"\n")
            let check = try await ChildProcess.run([binary, "check-config", "--config", config])
            let dsp = try await ChildProcess.run([
                binary, "dsp", "--config", config, "--mic", micPath, "--reference", referencePath,
                "--out", directory.file("out.wav")
            ])
            if accepted.contains(keys) {
                #expect(
                    check.status == 0 && dsp.status == 0, "\(keys): check-config \(check.status) \(check.stdout), dsp \(dsp.status) \(dsp.stderr)")
            } else {
                #expect(check.status == 78 && check.stdout.hasPrefix("\(config):"), "\(keys): check-config \(check.status) \(check.stdout)")
                #expect(dsp.status == 78, "\(keys): dsp \(dsp.status) \(dsp.stderr)")
            }
        }
    }
}
