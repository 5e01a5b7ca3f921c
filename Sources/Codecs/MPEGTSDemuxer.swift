/// The audio of an MPEG transport stream (an HLS segment): PAT → PMT → the first audio stream's PES
/// payload, handed on as bytes in order, and timed ID3 metadata (stream type 0x15) as whole tags.
/// Ours because the format is 188-byte packets with fixed fields and only these few tables matter;
/// Debian's demuxers come with libavformat (see `docs/media.md`). Packets out of sync are skipped
/// until the next 0x47 that another 188 bytes later confirms; tables longer than one packet (no audio
/// HLS stream has them) are ignored.
public struct MPEGTSDemuxer: Sendable {
    public enum AudioStream: Sendable, Equatable {
        case aac, mp3
    }

    static let packetBytes = 188
    static let maxMetadataBytes = 1 << 16
    public private(set) var audioStream: AudioStream?
    private var buffer: [UInt8] = []
    private var pmtPID: Int?
    private var audioPID: Int?
    private var metadataPID: Int?
    private var metadata: [UInt8]?
    /// Stream types the PMT listed that are audio we do not play (AC-3, LATM, ...), by name.
    private var otherAudio: String?

    public init() {}

    /// Feeds bytes; `audio` gets the audio elementary stream's bytes (and what it is), `tag` each whole ID3 tag.
    public mutating func push(
        _ bytes: UnsafeRawBufferPointer, audio: (AudioStream, UnsafeRawBufferPointer) -> Void, tag: ([UInt8]) -> Void
    ) throws(CodecError) {
        buffer.append(contentsOf: bytes)
        var at = 0
        while buffer.count - at >= Self.packetBytes {
            guard buffer[at] == 0x47 else {
                at += 1
                continue
            }
            if buffer.count - at >= 2 * Self.packetBytes, buffer[at + Self.packetBytes] != 0x47 {
                at += 1
                continue
            }
            try packet(at: at, audio: audio, tag: tag)
            at += Self.packetBytes
        }
        buffer.removeSubrange(0..<at)
    }

    /// The segment ended: a metadata tag still open is complete.
    public mutating func endOfSegment(tag: ([UInt8]) -> Void) {
        if let pending = metadata, let payload = Self.pesPayload(pending) { tag(Array(payload)) }
        metadata = nil
        buffer.removeAll()
    }

    private mutating func packet(
        at start: Int, audio: (AudioStream, UnsafeRawBufferPointer) -> Void, tag: ([UInt8]) -> Void
    ) throws(CodecError) {
        let unitStart = buffer[start + 1] & 0x40 != 0
        let pid = Int(buffer[start + 1] & 0x1F) << 8 | Int(buffer[start + 2])
        let control = (buffer[start + 3] >> 4) & 0x03
        var payload = start + 4
        if control & 0x02 != 0 { payload += 1 + Int(buffer[start + 4]) }
        let end = start + Self.packetBytes
        guard control & 0x01 != 0, payload < end else { return }
        let body = buffer[payload..<end]
        switch pid {
        case 0 where unitStart: programAssociation(body)
        case pmtPID where unitStart: try programMap(body)
        case audioPID:
            guard let audioStream else { return }
            var bytes = body
            if unitStart {
                guard let payloadStart = Self.pesHeaderLength(bytes) else { return }
                bytes = bytes.dropFirst(payloadStart)
            }
            bytes.withUnsafeBytes { audio(audioStream, $0) }
        case metadataPID:
            if unitStart {
                if let pending = metadata, let complete = Self.pesPayload(pending) { tag(Array(complete)) }
                metadata = Array(body)
            } else if metadata != nil, metadata!.count + body.count <= Self.maxMetadataBytes {
                metadata!.append(contentsOf: body)
            }
        default: break
        }
    }

    /// A section's body after the pointer field, the table id and its length (CRC dropped).
    private static func section(_ body: ArraySlice<UInt8>, table: UInt8) -> ArraySlice<UInt8>? {
        guard let pointer = body.first else { return nil }
        let start = body.startIndex + 1 + Int(pointer)
        guard start + 3 <= body.endIndex, body[start] == table else { return nil }
        let length = Int(body[start + 1] & 0x0F) << 8 | Int(body[start + 2])
        let end = start + 3 + length - 4
        guard length >= 9, end <= body.endIndex else { return nil }
        return body[(start + 3)..<end]
    }

    private mutating func programAssociation(_ body: ArraySlice<UInt8>) {
        guard let table = Self.section(body, table: 0x00) else { return }
        var at = table.startIndex + 5
        while at + 4 <= table.endIndex {
            let program = Int(table[at]) << 8 | Int(table[at + 1])
            if program != 0 {
                pmtPID = Int(table[at + 2] & 0x1F) << 8 | Int(table[at + 3])
                return
            }
            at += 4
        }
    }

    private mutating func programMap(_ body: ArraySlice<UInt8>) throws(CodecError) {
        guard let table = Self.section(body, table: 0x02), table.count >= 9 else { return }
        let infoLength = Int(table[table.startIndex + 7] & 0x0F) << 8 | Int(table[table.startIndex + 8])
        var at = table.startIndex + 9 + infoLength
        while at + 5 <= table.endIndex {
            let type = table[at]
            let pid = Int(table[at + 1] & 0x1F) << 8 | Int(table[at + 2])
            let length = Int(table[at + 3] & 0x0F) << 8 | Int(table[at + 4])
            switch type {
            case 0x0F where audioPID == nil:
                audioPID = pid
                audioStream = .aac
            case 0x03, 0x04:
                if audioPID == nil {
                    audioPID = pid
                    audioStream = .mp3
                }
            case 0x15: metadataPID = pid
            case 0x11: otherAudio = otherAudio ?? "AAC in LATM"
            case 0x81, 0x87: otherAudio = otherAudio ?? "Dolby Digital (AC-3)"
            default: break
            }
            at += 5 + length
        }
        if audioPID == nil, let otherAudio {
            throw CodecError(kind: .unsupported, codec: "mpeg-ts", function: "PMT", message: "its audio is \(otherAudio)")
        }
    }

    /// Bytes of a PES packet's header (to its payload), or nil when it is not one.
    private static func pesHeaderLength(_ bytes: ArraySlice<UInt8>) -> Int? {
        let s = bytes.startIndex
        guard bytes.count >= 9, bytes[s] == 0, bytes[s + 1] == 0, bytes[s + 2] == 1 else { return nil }
        let length = 9 + Int(bytes[s + 8])
        return length <= bytes.count ? length : nil
    }

    private static func pesPayload(_ bytes: [UInt8]) -> ArraySlice<UInt8>? {
        pesHeaderLength(bytes[...]).map { bytes[$0...] }
    }
}
