import Glibc

/// Test audio made at test time: espeak-ng speech resampled to 24 kHz mono PCM16 by sox (-D: no dither, so
/// the bytes are deterministic), and plain tone bursts.
enum SpeechFixture {
    static func speech(_ text: String) -> [Int16]? {
        let command =
            "espeak-ng -v en-us -s 170 --stdout '\(text)' 2>/dev/null | sox -D -t wav - -t raw -r 24000 -e signed-integer -b 16 -c 1 - 2>/dev/null"
        guard let pipe = popen(command, "r") else { return nil }
        defer { pclose(pipe) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&chunk, 1, chunk.count, pipe)
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        guard bytes.count >= 4800 else { return nil }
        return stride(from: 0, to: bytes.count - 1, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
    }

    static func tone(milliseconds: Int, frequency: Double = 440, amplitude: Double = 8000) -> [Int16] {
        (0..<(milliseconds * 24)).map { Int16(amplitude * sin(2 * Double.pi * frequency * Double($0) / 24000)) }
    }

    static func silence(milliseconds: Int) -> [Int16] { [Int16](repeating: 0, count: milliseconds * 24) }
}
