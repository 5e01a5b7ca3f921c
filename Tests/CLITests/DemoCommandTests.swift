import ALSATestbed
import AudioCore
import Glibc
import TestProcess
import Testing

/// `jarvis-voice demo` as a newcomer runs it: it must exit 0 and leave the spoken answer in a WAV.
@Suite(.timeLimit(.minutes(3))) struct DemoCommandTests {
    static let answer = "The oven timer has four minutes left."
    let dir = TemporaryDirectory()

    @Test func demoLeavesTheSpokenAnswerInAWAV() async throws {
        let binary = try #require(ChildProcess.builtExecutable(), "jarvis-voice is not built next to the tests")
        let out = dir.file("answer.wav")
        // A generous timeout: other suites load the machine while this runs.
        let demo = try await ChildProcess.run(
            [binary, "demo", "--out", out, "--answer", Self.answer, "--timeout", "120"], timeout: .seconds(150))
        try #require(demo.status == 0, "\(demo)")
        #expect(demo.stdout.contains("turn: first_audio_ms="), "\(demo.stdout)")
        #expect(demo.stdout.contains("-> ai_speaking -> listening -> idle"), "\(demo.stdout)")

        let wav = try WAVFile(bytes: TestFiles.read(out))
        #expect(wav.format == AudioFormat(sampleRate: 48_000, channels: 2))
        let seconds = Double(wav.frameCount) / 48_000
        let expected = try await Self.spokenSeconds(Self.answer)
        #expect(seconds >= 0.7 * expected && seconds <= expected + 0.5, "answer \(seconds) s, espeak-ng says \(expected) s")

        // Speech-level energy: most 20 ms blocks well above silence, the whole at a speaking level.
        let block = 960 * 2
        var loud = 0
        var total = 0.0
        for start in stride(from: 0, to: wav.samples.count - block + 1, by: block) {
            var sum = 0.0
            for sample in wav.samples[start..<(start + block)] { sum += Double(sample) * Double(sample) }
            total += sum
            if (sum / Double(block)).squareRoot() > 300 { loud += 1 }
        }
        let blocks = wav.samples.count / block
        let rms = (total / Double(max(1, blocks * block))).squareRoot()
        #expect(rms > 1_000, "answer RMS \(rms)")
        #expect(loud * 2 >= blocks, "\(loud) of \(blocks) blocks carry sound")
    }

    /// Run from a directory without the paced plugin (hard links of both executables), the demo says
    /// how to build it.
    @Test func aMissingPluginIsExplainedBeforeAnythingStarts() async throws {
        let copy = try linkBuilt(["jarvis-voice", "jarvis-voice-demo"])
        let demo = try await ChildProcess.run([copy["jarvis-voice"]!, "demo", "--out", dir.file("answer.wav")], timeout: .seconds(60))
        #expect(demo.status == 1, "\(demo)")
        #expect(demo.stderr.contains("libasound_module_pcm_jvpaced.so is missing"), "\(demo)")
        #expect(demo.stderr.contains("swift build"), "\(demo)")
        #expect(!TestFiles.exists(dir.file("answer.wav")))
    }

    /// The shipped binary alone (as installed on the device): `demo` says where the demo comes from.
    @Test func anInstalledServiceExplainsThatTheDemoIsADevelopmentTool() async throws {
        let copy = try linkBuilt(["jarvis-voice"])
        let demo = try await ChildProcess.run([copy["jarvis-voice"]!, "demo", "--out", dir.file("answer.wav")], timeout: .seconds(60))
        #expect(demo.status == 1, "\(demo)")
        #expect(demo.stderr.contains("jarvis-voice-demo is missing"), "\(demo)")
        #expect(demo.stderr.contains("swift build"), "\(demo)")
        #expect(!TestFiles.exists(dir.file("answer.wav")))
    }

    /// The demo without the service next to it names the missing executable before starting anything.
    @Test func theDemoNeedsTheServiceNextToIt() async throws {
        let copy = try linkBuilt(["jarvis-voice-demo", PacedPlugin.fileName])
        let demo = try await ChildProcess.run([copy["jarvis-voice-demo"]!, "--out", dir.file("answer.wav")], timeout: .seconds(60))
        #expect(demo.status == 1, "\(demo)")
        #expect(demo.stderr.contains("/jarvis-voice is missing"), "\(demo)")
        #expect(!TestFiles.exists(dir.file("answer.wav")))
    }

    /// The shipped executable links no test support: no stand-in server, test PCM or test-process type
    /// in its symbols (the demo's own executable has them).
    @Test func theShippedBinaryLinksNoTestSupport() async throws {
        let shipped = try #require(ChildProcess.builtExecutable(), "jarvis-voice is not built next to the tests")
        let demo = try #require(ChildProcess.builtExecutable("jarvis-voice-demo"), "jarvis-voice-demo is not built")
        let markers = ["RealtimeStandIn", "TermLLMStandIn", "MediaStandIn", "PacedPlugin", "TestPCMConfig", "BackgroundProcess"]
        let shippedSymbols = try await Self.symbols(shipped)
        let demoSymbols = try await Self.symbols(demo)
        for marker in markers {
            #expect(!shippedSymbols.contains(marker), "jarvis-voice has \(marker)")
        }
        #expect(demoSymbols.contains("RealtimeStandIn") && demoSymbols.contains("PacedPlugin"), "the check would see them")
    }

    static func symbols(_ binary: String) async throws -> String {
        let nm = try await ChildProcess.run(["nm", binary], timeout: .seconds(120))
        try #require(nm.status == 0, "nm \(binary): \(nm.stderr)")
        return nm.stdout
    }

    /// Hard links of built files (executables, the plugin) in the test's directory, by name.
    private func linkBuilt(_ names: [String]) throws -> [String: String] {
        let shipped = try #require(ChildProcess.builtExecutable(), "jarvis-voice is not built next to the tests")
        let buildDirectory = String(shipped[..<shipped.lastIndex(of: "/")!])
        var links: [String: String] = [:]
        for name in names {
            let copy = dir.file(name)
            try #require(link(buildDirectory + "/" + name, copy) == 0, "link \(name): \(String(cString: strerror(errno)))")
            links[name] = copy
        }
        return links
    }

    /// How long espeak-ng speaks `text` (what the demo's stand-in plays as the answer).
    static func spokenSeconds(_ text: String) async throws -> Double {
        let dir = TemporaryDirectory()
        let wav = dir.file("expected.wav")
        let speak = try await ChildProcess.run(["espeak-ng", "-v", "en-us", "-s", "160", "-w", wav, text])
        try #require(speak.status == 0, "\(speak)")
        let file = try WAVFile(bytes: TestFiles.read(wav))
        return Double(file.frameCount) / Double(file.format.sampleRate)
    }
}
