/// Standard base64 (RFC 4648, with padding) over raw bytes and PCM16 samples, without Foundation.
/// Audio deltas are the hot path of the Realtime socket (tens of KB per event, ~50 events/s).
public enum Base64 {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// 0...63 for alphabet bytes, 0xFF otherwise.
    private static let reverse: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    public static func encodedLength(ofBytes count: Int) -> Int { (count + 2) / 3 * 4 }

    public static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        let outputLength = encodedLength(ofBytes: bytes.count)
        if outputLength == 0 { return "" }
        return String(unsafeUninitializedCapacity: outputLength) { output in encode(bytes, into: output) }
    }

    /// Writes the base64 text of `bytes` into `output` (at least `encodedLength(ofBytes:)` long); returns its length.
    public static func encode(_ bytes: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<UInt8>) -> Int {
        precondition(output.count >= encodedLength(ofBytes: bytes.count), "base64 output buffer too small")
        return alphabet.withUnsafeBufferPointer { table in
            var out = 0
            var index = 0
            let count = bytes.count
            while index + 3 <= count {
                let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                output[out] = table[Int(value >> 18 & 63)]
                output[out + 1] = table[Int(value >> 12 & 63)]
                output[out + 2] = table[Int(value >> 6 & 63)]
                output[out + 3] = table[Int(value & 63)]
                index += 3
                out += 4
            }
            let remaining = count - index
            if remaining > 0 {
                var value = UInt32(bytes[index]) << 16
                if remaining == 2 { value |= UInt32(bytes[index + 1]) << 8 }
                output[out] = table[Int(value >> 18 & 63)]
                output[out + 1] = table[Int(value >> 12 & 63)]
                output[out + 2] = remaining == 2 ? table[Int(value >> 6 & 63)] : UInt8(ascii: "=")
                output[out + 3] = UInt8(ascii: "=")
                out += 4
            }
            return out
        }
    }

    public static func encode(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes { encode($0) }
    }

    /// Encodes PCM16 samples as little-endian bytes (the Realtime `audio/pcm` layout).
    public static func encode(samples: UnsafeBufferPointer<Int16>) -> String {
        #if _endian(little)
            return encode(UnsafeRawBufferPointer(samples))
        #else
            let bytes = samples.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
            return encode(bytes)
        #endif
    }

    public static func encode(samples: [Int16]) -> String {
        samples.withUnsafeBufferPointer { encode(samples: $0) }
    }

    /// Bytes that `text` decodes to, computed from its length and padding only (no validation).
    public static func decodedLength(of text: String) -> Int {
        let utf8 = text.utf8
        let count = utf8.count
        var padding = 0
        if utf8.last == UInt8(ascii: "=") {
            padding = utf8.dropLast().last == UInt8(ascii: "=") ? 2 : 1
        }
        return max(0, count / 4 * 3 + (count % 4) * 3 / 4 - padding)
    }

    /// Decodes into `output`; returns the number of bytes written, or nil for invalid input or a too small buffer.
    public static func decode(_ text: String, into output: UnsafeMutableRawBufferPointer) -> Int? {
        var copy = text
        return copy.withUTF8 { decode(utf8: UnsafeRawBufferPointer($0), into: output) }
    }

    public static func decode(utf8 input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int? {
        reverse.withUnsafeBufferPointer { table -> Int? in
            var accumulator: UInt32 = 0
            var bits = 0
            var written = 0
            var padding = 0
            for byte in input {
                if byte == UInt8(ascii: "=") {
                    padding += 1
                    continue
                }
                if padding > 0 { return nil }
                let value = table[Int(byte)]
                if value == 0xFF { return nil }
                accumulator = accumulator << 6 | UInt32(value)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    guard written < output.count else { return nil }
                    output[written] = UInt8(truncatingIfNeeded: accumulator >> UInt32(bits))
                    written += 1
                }
            }
            if padding > 2 || (input.count - padding) % 4 == 1 { return nil }
            return written
        }
    }

    public static func decode(_ text: String) -> [UInt8]? {
        let capacity = decodedLength(of: text) + 3
        var result = [UInt8](repeating: 0, count: capacity)
        guard let written = result.withUnsafeMutableBytes({ decode(text, into: $0) }) else { return nil }
        result.removeLast(capacity - written)
        return result
    }

    /// Decodes little-endian PCM16; an odd trailing byte is dropped.
    public static func decodeSamples(_ text: String) -> [Int16]? {
        guard let bytes = decode(text) else { return nil }
        let count = bytes.count / 2
        return [Int16](unsafeUninitializedCapacity: count) { samples, initialized in
            for index in 0..<count {
                samples[index] = Int16(bitPattern: UInt16(bytes[2 * index]) | UInt16(bytes[2 * index + 1]) << 8)
            }
            initialized = count
        }
    }
}
