/// Splits an AAC ADTS stream (ISO/IEC 13818-7 §6.2, 14496-3 §1.A.2) into whole frames: bytes in any
/// chunking, one frame at a time out, as libfaad wants them. Ours because the header is 7 fixed-layout
/// bytes and libfaad has no framing of its own for a stream. A stream joined mid-frame, junk after a
/// reconnect or an ID3v2 tag in front is skipped: out of sync, a header counts only when another header
/// follows its frame, so a stray 0xFFF in audio data cannot lock on.
public struct ADTSFramer: Sendable {
    public static let maxFrameBytes = 8_191  // the header's 13-bit length
    /// Bytes skipped while searching for sync (junk, tags).
    public private(set) var skippedBytes = 0

    private var buffer: [UInt8] = []
    private var readOffset = 0
    private var synced = false
    private var skipRemaining = 0

    public init() {}

    public mutating func push(_ bytes: UnsafeRawBufferPointer) {
        if readOffset > 0, readOffset >= buffer.count / 2 {
            buffer.removeSubrange(0..<readOffset)
            readOffset = 0
        }
        var incoming = bytes[...]
        if skipRemaining > 0 {
            let dropped = min(skipRemaining, incoming.count)
            skipRemaining -= dropped
            skippedBytes += dropped
            incoming = incoming.dropFirst(dropped)
        }
        buffer.append(contentsOf: incoming)
    }

    /// Forgets any partial frame and the sync (a reconnect starts a new stream).
    public mutating func reset() {
        buffer.removeAll(keepingCapacity: true)
        readOffset = 0
        synced = false
        skipRemaining = 0
    }

    /// The next whole frame (header included), or nil until more bytes arrive.
    public mutating func nextFrame() -> ArraySlice<UInt8>? {
        while buffer.count - readOffset >= 7 {
            if !synced, skipTag() { continue }
            guard let length = Self.frameLength(buffer, at: readOffset) else {
                synced = false
                readOffset += 1
                skippedBytes += 1
                continue
            }
            let end = readOffset + length
            if !synced {
                // Confirm with the next header; wait for it unless the buffer is already far past it.
                guard buffer.count >= end + 7 else { return nil }
                guard Self.frameLength(buffer, at: end) != nil else {
                    readOffset += 1
                    skippedBytes += 1
                    continue
                }
                synced = true
            }
            guard buffer.count >= end else { return nil }
            defer { readOffset = end }
            return buffer[readOffset..<end]
        }
        return nil
    }

    /// Skips an ID3v2 tag at the read position (HLS audio segments and some files carry one); true if it did.
    private mutating func skipTag() -> Bool {
        guard buffer.count - readOffset >= 10, buffer[readOffset] == 0x49, buffer[readOffset + 1] == 0x44,
            buffer[readOffset + 2] == 0x33
        else { return false }
        let sizeBytes = buffer[(readOffset + 6)..<(readOffset + 10)]
        guard sizeBytes.allSatisfy({ $0 < 0x80 }) else { return false }
        let size = sizeBytes.reduce(0) { $0 << 7 | Int($1) }
        let footer = buffer[readOffset + 5] & 0x10 != 0 ? 10 : 0
        let total = 10 + size + footer
        let available = min(total, buffer.count - readOffset)
        readOffset += available
        skippedBytes += available
        skipRemaining = total - available
        if skipRemaining > 0 {
            buffer.removeAll(keepingCapacity: true)
            readOffset = 0
        }
        return true
    }

    /// The frame length an ADTS header at `offset` declares, or nil if no valid header starts there.
    static func frameLength(_ bytes: [UInt8], at offset: Int) -> Int? {
        guard offset + 7 <= bytes.count else { return nil }
        let b1 = bytes[offset + 1], b2 = bytes[offset + 2]
        // sync 0xFFF, layer 00 (MPEG audio frames have a non-zero layer), a defined sampling frequency index
        guard bytes[offset] == 0xFF, b1 & 0xF6 == 0xF0, (b2 >> 2) & 0x0F <= 12 else { return nil }
        let length = Int(bytes[offset + 3] & 0x03) << 11 | Int(bytes[offset + 4]) << 3 | Int(bytes[offset + 5] >> 5)
        let headerLength = b1 & 0x01 == 0 ? 9 : 7
        return length >= headerLength ? length : nil
    }
}
