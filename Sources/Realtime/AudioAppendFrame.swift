#if !_endian(little)
    #error("AudioAppendFrame writes samples as they lie in memory; the wire format is little-endian")
#endif

/// Builds `input_audio_buffer.append` frames straight from PCM16 samples: one String allocation per frame,
/// no JSONEncoder, no intermediate base64 String (the uplink sends one every 20–40 ms).
public enum AudioAppendFrame {
    private static let prefix = Array(#"{"type":"input_audio_buffer.append","audio":""#.utf8)
    private static let suffix = Array(#""}"#.utf8)

    /// Same JSON as `ClientEvent.inputAudioBufferAppend(audio:).jsonText()` for these samples.
    public static func text(samples: UnsafeBufferPointer<Int16>) -> String {
        let bytes = UnsafeRawBufferPointer(samples)
        let encodedLength = Base64.encodedLength(ofBytes: bytes.count)
        let total = prefix.count + encodedLength + suffix.count
        return String(unsafeUninitializedCapacity: total) { output in
            var offset = 0
            for byte in prefix {
                output[offset] = byte
                offset += 1
            }
            offset += Base64.encode(bytes, into: UnsafeMutableBufferPointer(rebasing: output[offset..<(offset + encodedLength)]))
            for byte in suffix {
                output[offset] = byte
                offset += 1
            }
            return offset
        }
    }

    public static func text(samples: [Int16]) -> String {
        samples.withUnsafeBufferPointer { text(samples: $0) }
    }
}
