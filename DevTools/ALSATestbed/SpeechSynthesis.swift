import TestProcess

/// Speech made at run time (nothing recorded is shipped): espeak-ng writes a WAV, `sox -D` (no dither,
/// so the bytes are deterministic) converts it to raw mono PCM16 at `rate`. The children are awaited
/// without blocking a thread of the shared pool.
public enum SpeechSynthesis {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// `text` spoken at 160 words per minute in espeak-ng's `voice`, at its `pitch` (0-99; nil: its default,
    /// 50); the WAV and raw files are left in `directory` as `name`.*.
    public static func speak(
        _ text: String, rate: Int, directory: String, name: String, voice: String = "en-us",
        pitch: Int? = nil
    ) async throws(Failure) -> [Int16] {
        let wav = directory + "/" + name + ".wav"
        let raw = directory + "/" + name + ".raw"
        let pitchArguments = pitch.map { ["-p", "\($0)"] } ?? []
        try await run(["espeak-ng", "-v", voice, "-s", "160"] + pitchArguments + ["-w", wav, text])
        try await run(["sox", "-D", wav, "-r", "\(rate)", "-c", "1", "-b", "16", "-e", "signed-integer", "-t", "raw", raw])
        let samples: [Int16]
        do { samples = try TestFiles.readSamples(raw) } catch { throw Failure(description: "\(error)") }
        guard samples.count > rate / 4 else { throw Failure(description: "espeak-ng produced no speech for \"\(text)\"") }
        return samples
    }

    private static func run(_ argv: [String]) async throws(Failure) {
        let result: ChildProcess.Result
        do {
            result = try await ChildProcess.run(argv, stdout: .discard, timeout: .seconds(20))
        } catch {
            throw Failure(description: "\(argv[0]) is not installed (\(error)); run scripts/install-deps")
        }
        guard result.status == 0 else {
            throw Failure(description: "\(argv[0]) failed with status \(result.status): \(result.stderr); run scripts/install-deps")
        }
    }
}
