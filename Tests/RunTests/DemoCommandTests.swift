import ALSATestbed
import AudioCore
import Glibc
import Testing
import TestProcess

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

    /// Run from a directory without the paced plugin (a hard link of the binary), it says how to build it.
    @Test func aMissingPluginIsExplainedBeforeAnythingStarts() async throws {
        let binary = try #require(ChildProcess.builtExecutable(), "jarvis-voice is not built next to the tests")
        let copy = dir.file("jarvis-voice")
        try #require(link(binary, copy) == 0, "link: \(String(cString: strerror(errno)))")
        let demo = try await ChildProcess.run([copy, "demo", "--out", dir.file("answer.wav")], timeout: .seconds(60))
        #expect(demo.status == 1, "\(demo)")
        #expect(demo.stderr.contains("libasound_module_pcm_jvpaced.so is missing"), "\(demo)")
        #expect(demo.stderr.contains("swift build"), "\(demo)")
        #expect(!TestFiles.exists(dir.file("answer.wav")))
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
