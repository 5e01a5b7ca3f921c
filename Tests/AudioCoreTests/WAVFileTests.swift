import Testing

@testable import AudioCore

@Suite struct WAVFileTests {
    @Test func roundTripsStereo() throws {
        let wav = WAVFile(format: AudioFormat(sampleRate: 48_000, channels: 2), samples: [0, 1, -1, .max, .min, 1234])
        let bytes = wav.bytes
        #expect(bytes.count == 44 + 12)
        #expect(try WAVFile(bytes: bytes) == wav)
    }

    @Test func skipsUnknownChunksAndClampsAnOverstatedDataSize() throws {
        var bytes = WAVFile(format: .processing, samples: [7, 8, 9]).bytes
        // Insert a LIST chunk between fmt and data, and overstate the data size.
        let list: [UInt8] = Array("LIST".utf8) + [3, 0, 0, 0, 1, 2, 3, 0]
        bytes.insert(contentsOf: list, at: 36)
        bytes[36 + list.count + 4] = 0xFF
        let wav = try WAVFile(bytes: bytes)
        #expect(wav.samples == [7, 8, 9])
        #expect(wav.format == .processing)
    }

    @Test func rejectsWhatItCannotRead() {
        #expect(throws: WAVError.notWAVE) { try WAVFile(bytes: Array("hello world!".utf8)) }
        var float = WAVFile(format: .processing, samples: [1]).bytes
        float[20] = 3
        #expect(throws: WAVError.unsupported("format code 3, expected PCM")) { try WAVFile(bytes: float) }
    }
}
