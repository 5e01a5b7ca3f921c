/// Reading and writing RIFF/WAVE files of 16-bit integer PCM (the DSP tool, fixtures, the demo).
///
/// Only the byte layout lives here; callers do the file I/O, so this stays pure.
public struct WAVFile: Sendable, Equatable {
    public var format: AudioFormat
    /// Interleaved samples.
    public var samples: [Int16]

    public init(format: AudioFormat, samples: [Int16]) {
        self.format = format
        self.samples = samples
    }

    public var frameCount: Int { samples.count / format.channels }

    /// Parses a WAVE file. Accepts PCM (format 1) or WAVE_FORMAT_EXTENSIBLE with 16-bit samples,
    /// skips unknown chunks, and tolerates a data chunk whose size field overstates the file
    /// (streams written without a final header fix-up).
    public init(bytes: [UInt8]) throws(WAVError) {
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        func tag(_ at: Int) -> String { String(decoding: bytes[at..<at + 4], as: UTF8.self) }

        guard bytes.count >= 12, tag(0) == "RIFF", tag(8) == "WAVE" else { throw .notWAVE }
        var offset = 12
        var format: AudioFormat?
        while offset + 8 <= bytes.count {
            let id = tag(offset)
            let size = u32(offset + 4)
            let body = offset + 8
            switch id {
            case "fmt ":
                guard size >= 16, body + 16 <= bytes.count else { throw .truncated }
                let code = u16(body)
                let channels = u16(body + 2)
                let rate = u32(body + 4)
                let bits = u16(body + 14)
                guard code == 1 || code == 0xFFFE else { throw .unsupported("format code \(code), expected PCM") }
                guard bits == 16 else { throw .unsupported("\(bits)-bit samples, expected 16-bit") }
                guard channels > 0, rate > 0 else { throw .unsupported("\(channels) channels at \(rate) Hz") }
                format = AudioFormat(sampleRate: rate, channels: channels)
            case "data":
                guard let format else { throw .missingFormat }
                let available = min(size, bytes.count - body)
                let frames = available / format.bytesPerFrame
                var samples = [Int16](repeating: 0, count: frames * format.channels)
                for i in samples.indices {
                    samples[i] = Int16(bitPattern: UInt16(u16(body + 2 * i)))
                }
                self.init(format: format, samples: samples)
                return
            default:
                break
            }
            offset = body + size + (size & 1)
        }
        throw format == nil ? .missingFormat : .missingData
    }

    /// The canonical 44-byte-header encoding.
    public var bytes: [UInt8] {
        let dataSize = samples.count * 2
        var out: [UInt8] = []
        out.reserveCapacity(44 + dataSize)
        func put(_ s: String) { out.append(contentsOf: Array(s.utf8)) }
        func put16(_ v: Int) {
            out.append(UInt8(v & 0xFF))
            out.append(UInt8((v >> 8) & 0xFF))
        }
        func put32(_ v: Int) {
            put16(v & 0xFFFF)
            put16((v >> 16) & 0xFFFF)
        }
        put("RIFF")
        put32(36 + dataSize)
        put("WAVE")
        put("fmt ")
        put32(16)
        put16(1)
        put16(format.channels)
        put32(format.sampleRate)
        put32(format.sampleRate * format.bytesPerFrame)
        put16(format.bytesPerFrame)
        put16(16)
        put("data")
        put32(dataSize)
        for s in samples { put16(Int(UInt16(bitPattern: s))) }
        return out
    }
}

public enum WAVError: Error, Equatable, CustomStringConvertible {
    case notWAVE
    case truncated
    case missingFormat
    case missingData
    case unsupported(String)

    public var description: String {
        switch self {
        case .notWAVE: "not a RIFF/WAVE file"
        case .truncated: "the file is truncated"
        case .missingFormat: "no 'fmt ' chunk before the audio data"
        case .missingData: "no 'data' chunk"
        case .unsupported(let what): "unsupported WAVE layout: \(what)"
        }
    }
}
