/// An MPEG-TS holding nothing but timed ID3 tags, each a title (TIT2), for ffmpeg to copy into an HLS
/// stream's segments (`FFmpegHLS`): ffmpeg has no option to write timed ID3 itself, but its TS muxer
/// carries such a stream from an input. The PMT declares it as Apple's HLS timed metadata does (stream
/// type 0x15, registration and metadata descriptors "ID3 "), which is how ffmpeg's demuxer recognises it.
public enum TimedID3Stream {
    static let pmtPID = 0x1000
    static let id3PID = 0x101

    /// `titles[i]` at `i * interval` seconds (90 kHz presentation times).
    public static func transportStream(titles: [String], interval: Duration) -> [UInt8] {
        var counters: [Int: Int] = [:]
        var stream: [UInt8] = []
        let step = Double(interval.components.seconds) + Double(interval.components.attoseconds) * 1e-18
        for (index, title) in titles.enumerated() {
            stream += packets(pid: 0, payload: [0] + section(programAssociation), psi: true, counters: &counters)
            stream += packets(pid: pmtPID, payload: [0] + section(programMap), psi: true, counters: &counters)
            let pts = Int((Double(index) * step * 90_000).rounded())
            stream += packets(pid: id3PID, payload: pes(auCell(id3(title: title), sequence: index), pts: pts), psi: false, counters: &counters)
        }
        return stream
    }

    /// PAT: program 1, its PMT on `pmtPID`.
    static var programAssociation: [UInt8] {
        let body = [0x00, 0x01, 0xC1, 0x00, 0x00, 0x00, 0x01] + be16(0xE000 | pmtPID)
        return [0x00] + be16(0xB000 | (body.count + 4)) + body
    }

    /// PMT: one metadata stream (type 0x15) on `id3PID`, which also carries the (absent) PCR.
    static var programMap: [UInt8] {
        let registration: [UInt8] = [0x05, 4] + Array("ID3 ".utf8)
        // metadata_descriptor: application format 0xFFFF + "ID3 ", format 0xFF + "ID3 ", service 0, flags.
        let metadata: [UInt8] = [0x26, 13, 0xFF, 0xFF] + Array("ID3 ".utf8) + [0xFF] + Array("ID3 ".utf8) + [0x00, 0x0F]
        let descriptors = registration + metadata
        let stream = [0x15] + be16(0xE000 | id3PID) + be16(0xF000 | descriptors.count) + descriptors
        let body = [0x00, 0x01, 0xC1, 0x00, 0x00] + be16(0xE000 | id3PID) + be16(0xF000) + stream
        return [0x02] + be16(0xB000 | (body.count + 4)) + body
    }

    /// An ID3v2.4 tag with one UTF-8 TIT2 frame.
    static func id3(title: String) -> [UInt8] {
        let text = [0x03] + Array(title.utf8)
        let frame = Array("TIT2".utf8) + syncsafe(text.count) + [0, 0] + text
        return Array("ID3".utf8) + [0x04, 0x00, 0x00] + syncsafe(frame.count) + frame
    }

    /// A metadata access unit cell (ISO/IEC 13818-1 §2.12.4): the 5-byte header ffmpeg's demuxer reads,
    /// and strips, before a timed metadata payload; the HLS segments it writes carry the bare ID3 tag.
    static func auCell(_ payload: [UInt8], sequence: Int) -> [UInt8] {
        [0x00, UInt8(sequence & 0xFF), 0xDF] + be16(payload.count) + payload
    }

    /// A private-stream-1 PES packet with a PTS.
    static func pes(_ payload: [UInt8], pts: Int) -> [UInt8] {
        let time: [UInt8] = [
            UInt8(0x21 | ((pts >> 29) & 0x0E)), UInt8((pts >> 22) & 0xFF), UInt8(0x01 | ((pts >> 14) & 0xFE)),
            UInt8((pts >> 7) & 0xFF), UInt8(0x01 | ((pts << 1) & 0xFE))
        ]
        let header: [UInt8] = [0x80, 0x80, 5] + time
        return [0x00, 0x00, 0x01, 0xBD] + be16(header.count + payload.count) + header + payload
    }

    /// 188-byte TS packets; a section's last packet is padded with 0xFF, a PES's with adaptation-field stuffing.
    static func packets(pid: Int, payload: [UInt8], psi: Bool, counters: inout [Int: Int]) -> [UInt8] {
        var result: [UInt8] = []
        var rest = payload[...]
        var first = true
        while first || !rest.isEmpty {
            let chunk = rest.prefix(184)
            rest = rest.dropFirst(chunk.count)
            let counter = counters[pid, default: 0]
            counters[pid] = (counter + 1) & 0x0F
            let header: [UInt8] = [0x47, UInt8((first ? 0x40 : 0) | (pid >> 8 & 0x1F)), UInt8(pid & 0xFF)]
            let stuffing = 184 - chunk.count
            if stuffing == 0 || psi {
                result += header + [UInt8(0x10 | counter)] + chunk + [UInt8](repeating: 0xFF, count: stuffing)
            } else {
                let field: [UInt8] = stuffing == 1 ? [0] : [UInt8(stuffing - 1), 0x00] + [UInt8](repeating: 0xFF, count: stuffing - 2)
                result += header + [UInt8(0x30 | counter)] + field + chunk
            }
            first = false
        }
        return result
    }

    /// A PSI section with its CRC-32/MPEG-2.
    static func section(_ body: [UInt8]) -> [UInt8] {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in body {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        return body + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
    }

    static func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

    static func syncsafe(_ value: Int) -> [UInt8] { [21, 14, 7, 0].map { UInt8(value >> $0 & 0x7F) } }
}
