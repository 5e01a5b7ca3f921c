/// Encodes 48 kHz Int16 PCM to an Ogg Opus byte stream (one packet per page, 20 ms packets). Used to
/// make test fixtures and by the stand-in radio server; the appliance itself only decodes.
public final class OggOpusWriter {
    public static let frameSize = 960
    private let encoder: OpusEncoderHandle
    private let serial: UInt32
    private let tags: [String]
    private var pending: [Int16] = []
    private var pageSequence: UInt32 = 0
    private var granule: Int64 = 0
    private var inputFrames: Int64 = 0
    private var wroteHeaders = false
    public let channels: Int
    public let preSkip: Int

    /// - Parameter tags: `KEY=value` comments for OpusTags (e.g. "TITLE=Song").
    public init(channels: Int, bitrate: Int = 64_000, serial: UInt32 = 0x4A56, tags: [String] = []) throws(CodecError) {
        encoder = try OpusEncoderHandle(sampleRate: 48_000, channels: channels, bitrate: bitrate)
        self.channels = channels
        self.serial = serial
        self.tags = tags
        preSkip = encoder.lookahead
    }

    /// Appends PCM; returns the Ogg pages completed so far (headers first).
    public func write(_ samples: [Int16]) throws(CodecError) -> [UInt8] {
        var out = headersIfNeeded()
        pending.append(contentsOf: samples)
        inputFrames += Int64(samples.count / channels)
        let chunk = Self.frameSize * channels
        while pending.count >= chunk {
            try out.append(contentsOf: encodeFrame(Array(pending[0..<chunk]), last: false))
            pending.removeFirst(chunk)
        }
        return out
    }

    /// Flushes the encoder (zero padding) and writes the end-of-stream page with the exact length.
    public func finish() throws(CodecError) -> [UInt8] {
        var out = headersIfNeeded()
        let chunk = Self.frameSize * channels
        let endGranule = Int64(preSkip) + inputFrames
        repeat {
            var frame = pending
            pending.removeAll()
            frame.append(contentsOf: [Int16](repeating: 0, count: chunk - frame.count))
            let last = granule + Int64(Self.frameSize) >= endGranule
            try out.append(contentsOf: encodeFrame(frame, last: last, endGranule: endGranule))
        } while granule < endGranule
        return out
    }

    private func headersIfNeeded() -> [UInt8] {
        guard !wroteHeaders else { return [] }
        wroteHeaders = true
        var head = Array("OpusHead".utf8) + [1, UInt8(channels)]
        head += [UInt8(preSkip & 0xFF), UInt8(preSkip >> 8)]
        head += le32(48_000) + [0, 0, 0]
        var comments = Array("OpusTags".utf8)
        let vendor = Array("jarvis-voice".utf8)
        comments += le32(UInt32(vendor.count)) + vendor + le32(UInt32(tags.count))
        for tag in tags {
            let bytes = Array(tag.utf8)
            comments += le32(UInt32(bytes.count)) + bytes
        }
        return page(head, flags: 0x02, granule: 0) + page(comments, flags: 0, granule: 0)
    }

    private func encodeFrame(_ frame: [Int16], last: Bool, endGranule: Int64 = 0) throws(CodecError) -> [UInt8] {
        let packet = try encoder.encode(frame, frames: Self.frameSize)
        granule += Int64(Self.frameSize)
        return page(packet, flags: last ? 0x04 : 0, granule: last ? endGranule : granule)
    }

    private func page(_ packet: [UInt8], flags: UInt8, granule: Int64) -> [UInt8] {
        var lacing = [UInt8](repeating: 255, count: packet.count / 255)
        lacing.append(UInt8(packet.count % 255))
        var bytes = Array("OggS".utf8) + [0, flags]
        let g = UInt64(bitPattern: granule)
        for index in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: g >> (8 * UInt64(index)))) }
        bytes += le32(serial) + le32(pageSequence) + [0, 0, 0, 0, UInt8(lacing.count)] + lacing + packet
        pageSequence += 1
        let crc = bytes.withUnsafeBufferPointer { OggCRC.checksum($0) }
        bytes.replaceSubrange(22..<26, with: le32(crc))
        return bytes
    }

    private func le32(_ value: UInt32) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF), UInt8(value >> 24)]
    }
}
