/// Bounds-checked reads of ISO base media boxes inside a byte array: every read names the box and
/// fails with `CodecError` instead of reading past what holds it.
struct MP4BoxReader {
    struct Box {
        var type: String
        /// The payload, after the header.
        var range: Range<Int>
    }

    let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The boxes directly inside `range`, in order.
    func children(in range: Range<Int>) throws(CodecError) -> [Box] {
        var boxes: [Box] = []
        var at = range.lowerBound
        while range.upperBound - at >= 8 {
            var size = Int(try u32(at: at))
            var header = 8
            if size == 1 {
                guard range.upperBound - at >= 16 else { break }
                let large = UInt64(try u32(at: at + 8)) << 32 | UInt64(try u32(at: at + 12))
                guard large <= UInt64(Int.max) else { throw Self.error("box", "size \(large)") }
                size = Int(large)
                header = 16
            } else if size == 0 {
                size = range.upperBound - at
            }
            guard size >= header, size <= range.upperBound - at else {
                throw Self.error(fourCC(at: at + 4), "size \(size) past its parent")
            }
            boxes.append(Box(type: fourCC(at: at + 4), range: (at + header)..<(at + size)))
            at += size
        }
        return boxes
    }

    func child(_ type: String, in range: Range<Int>) throws(CodecError) -> Range<Int>? {
        try children(in: range).first { $0.type == type }?.range
    }

    func fourCC(at offset: Int) -> String {
        guard offset >= 0, offset + 4 <= bytes.count else { return "????" }
        return String(decoding: bytes[offset..<(offset + 4)].map { (0x20...0x7E).contains($0) ? $0 : 0x3F }, as: UTF8.self)
    }

    func u8(at offset: Int) throws(CodecError) -> UInt8 {
        guard offset >= 0, offset < bytes.count else { throw Self.error("box", "truncated") }
        return bytes[offset]
    }

    func u16(at offset: Int) throws(CodecError) -> UInt16 {
        UInt16(try u8(at: offset)) << 8 | UInt16(try u8(at: offset + 1))
    }

    func u32(at offset: Int) throws(CodecError) -> UInt32 {
        guard offset >= 0, offset + 4 <= bytes.count else { throw Self.error("box", "truncated") }
        return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    /// `count` big-endian 32-bit values at `offset`, which must all lie inside `box`.
    func u32s(count: Int, at offset: Int, within box: Range<Int>) throws(CodecError) -> [UInt32] {
        let (bytesNeeded, overflow) = count.multipliedReportingOverflow(by: 4)
        guard count >= 0, !overflow, offset >= box.lowerBound, bytesNeeded <= box.upperBound - offset else {
            throw Self.error("table", "\(count) entries do not fit their box")
        }
        return (0..<count).map { index in
            let at = offset + index * 4
            return UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
        }
    }

    /// From an `esds` payload (after version/flags): the DecoderConfigDescriptor's object type and its
    /// DecoderSpecificInfo (ISO/IEC 14496-1 §7.2.6).
    func decoderConfig(in range: Range<Int>) throws(CodecError) -> (objectType: UInt8, config: [UInt8]) {
        var at = range.lowerBound
        func descriptor(_ tag: UInt8) throws(CodecError) -> Range<Int> {
            guard try u8(at: at) == tag else { throw Self.error("esds", "descriptor \(tag) missing") }
            at += 1
            var length = 0
            for _ in 0..<4 {
                let byte = try u8(at: at)
                at += 1
                length = length << 7 | Int(byte & 0x7F)
                if byte & 0x80 == 0 { break }
            }
            guard length <= range.upperBound - at else { throw Self.error("esds", "descriptor \(tag) past its box") }
            return at..<(at + length)
        }
        let es = try descriptor(0x03)
        let flags = try u8(at: at + 2)
        at += 3
        if flags & 0x80 != 0 { at += 2 }
        if flags & 0x40 != 0 { at += 1 + Int(try u8(at: at)) }
        if flags & 0x20 != 0 { at += 2 }
        guard at < es.upperBound else { throw Self.error("esds", "ES descriptor truncated") }
        let decoderConfig = try descriptor(0x04)
        let objectType = try u8(at: at)
        at += 13
        guard at < decoderConfig.upperBound, try u8(at: at) == 0x05 else { return (objectType, []) }
        let specific = try descriptor(0x05)
        return (objectType, Array(bytes[specific]))
    }

    private static func error(_ box: String, _ message: String) -> CodecError {
        CodecError(kind: .invalidStream, codec: "mp4", function: box, message: message)
    }
}
