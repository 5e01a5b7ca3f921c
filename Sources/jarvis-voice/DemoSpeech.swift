import ALSATestbed
import TestProcess

/// Speech generated at run time with espeak-ng and sox (nothing recorded is shipped).
enum DemoSpeech {
    /// `text` spoken by espeak-ng, as mono PCM16 at `rate`.
    static func synthesize(_ text: String, rate: Int, in workspace: DemoWorkspace, name: String) async throws(DemoError) -> [Int16] {
        let wav = workspace.file(name + ".wav")
        let raw = workspace.file(name + ".raw")
        try await run(["espeak-ng", "-v", "en-us", "-s", "160", "-w", wav, text])
        try await run(["sox", "-D", wav, "-r", "\(rate)", "-c", "1", "-b", "16", "-e", "signed-integer", "-t", "raw", raw])
        let samples: [Int16]
        do { samples = try TestFiles.readSamples(raw) } catch { throw DemoError("\(error)") }
        guard samples.count > rate / 4 else { throw DemoError("espeak-ng produced no speech for \"\(text)\"") }
        return samples
    }

    private static func run(_ argv: [String]) async throws(DemoError) {
        let result: ChildProcess.Result
        do {
            result = try await ChildProcess.run(argv, stdout: .discard, timeout: .seconds(20))
        } catch {
            throw DemoError("\(argv[0]) is not installed (\(error)); run scripts/install-deps")
        }
        guard result.status == 0 else {
            throw DemoError("\(argv[0]) failed with status \(result.status): \(result.stderr); run scripts/install-deps")
        }
    }
}
