import Basics
import FoundationEssentials
import Testing

@testable import Realtime

@Suite struct Base64Tests {
    @Test func rfc4648Vectors() {
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
            #expect(Base64.decode(encoded) == Array(plain.utf8))
            #expect(Base64.decodedLength(of: encoded) == plain.utf8.count)
        }
    }

    @Test func matchesFoundationOnRandomBytes() {
        var generator = SplitMix(seed: 7)
        for length in [0, 1, 2, 3, 4, 5, 959, 960, 961, 4800] {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let encoded = Base64.encode(bytes)
            #expect(encoded == Data(bytes).base64EncodedString())
            #expect(Base64.decode(encoded) == bytes)
        }
    }

    @Test func samplesAreLittleEndianPCM16() {
        let samples: [Int16] = [0, 1, -1, .max, .min, 256]
        let encoded = Base64.encode(samples: samples)
        #expect(Base64.decode(encoded) == [0, 0, 1, 0, 0xFF, 0xFF, 0xFF, 0x7F, 0x00, 0x80, 0x00, 0x01])
        #expect(Base64.decodeSamples(encoded) == samples)
        #expect(AudioDelta(responseID: "R", itemID: "A", delta: encoded).sampleCount == samples.count)
    }

    @Test func invalidInputIsRejected() {
        #expect(Base64.decode("Zm9v!") == nil)
        #expect(Base64.decode("Zg=a") == nil)
        #expect(Base64.decode("Z") == nil)
        var small = [UInt8](repeating: 0, count: 2)
        #expect(small.withUnsafeMutableBytes { Base64.decode("Zm9v", into: $0) } == nil)
    }
}

struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct AudioAppendFrameTests {
    @Test(arguments: [0, 1, 2, 3, 480, 959])
    func matchesTheCodableEncoding(count: Int) {
        let samples = (0..<count).map { Int16(truncatingIfNeeded: $0 &* 7919 &- 3000) }
        let fast = AudioAppendFrame.text(samples: samples)
        let codable = ClientEvent.inputAudioBufferAppend(audio: Base64.encode(samples: samples)).jsonText()
        #expect(JSONValue.parse(fast) == JSONValue.parse(codable))
        #expect(fast.hasPrefix(#"{"type":"input_audio_buffer.append","audio":""#) && fast.hasSuffix(#""}"#))
        #expect(JSONValue.parse(fast)?["audio"]?.stringValue.flatMap(Base64.decodeSamples) == samples)
    }
}
