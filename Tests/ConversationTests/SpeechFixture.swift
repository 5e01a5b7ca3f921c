import Glibc
import Synchronization

/// Speech generated at test time: espeak-ng, then `sox -D` (no dither: deterministic) to 24 kHz mono
/// PCM16 raw, the uplink's format.
enum SpeechFixture {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private static let counter = Atomic(0)
    /// Generated once per text and process (spawning espeak-ng blocks a thread of the shared pool).
    private static let cache = Mutex<[String: [Int16]]>([:])

    static func speech(_ text: String) throws -> [Int16] {
        if let cached = cache.withLock({ $0[text] }) { return cached }
        let samples = try generate(text)
        cache.withLock { $0[text] = samples }
        return samples
    }

    private static func generate(_ text: String) throws -> [Int16] {
        precondition(text.allSatisfy { $0.isLetter || $0 == " " }, "plain words only (the text goes through a shell)")
        let n = counter.add(1, ordering: .relaxed).newValue
        let base = "/tmp/jarvis-voice-speech-\(getpid())-\(n)"
        defer {
            unlink(base + ".wav")
            unlink(base + ".raw")
        }
        let command =
            "espeak-ng -v en-us -s 165 -w \(base).wav \"\(text)\" && "
            + "sox -D \(base).wav -r 24000 -c 1 -b 16 -e signed-integer -t raw \(base).raw"
        guard system(command) == 0 else { throw Failure(description: "espeak-ng/sox failed: \(command)") }
        guard let file = fopen(base + ".raw", "rb") else { throw Failure(description: "no output from sox") }
        defer { fclose(file) }
        var samples: [Int16] = []
        var chunk = [Int16](repeating: 0, count: 4_096)
        while true {
            let read = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 2, 4_096, file) }
            if read == 0 { break }
            samples.append(contentsOf: chunk[0..<read])
        }
        guard samples.count > 2_400 else { throw Failure(description: "espeak-ng produced no speech") }
        return samples
    }
}
