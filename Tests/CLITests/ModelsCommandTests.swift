import TestProcess
import Testing

/// `jarvis-voice models`: what the owner reads to choose a model and see what it costs.
@Suite struct ModelsCommandTests {
    @Test func listsTheDefaultFirstWithItsCostsAndTheRetiredWithTheirReplacement() async throws {
        let binary = try #require(ChildProcess.builtExecutable("jarvis-voice"), "jarvis-voice is not built next to the tests")
        let result = try await ChildProcess.run(["/usr/bin/faketime", "2026-12-06 12:00:00", binary, "models"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(lines.first == "model status reasoning listening/min speaking/min question dj interlude say")
        #expect(lines.dropFirst().first == "gpt-realtime-2.1-mini current (default) yes $0.0060 $0.0240 $0.0066 $0.0041 $0.0025")
        #expect(lines.contains("gpt-realtime shuts down 2027-01-20: use gpt-realtime-2.1 no $0.0192 $0.0768 $0.0253 $0.0165 $0.0112"))
    }
}
