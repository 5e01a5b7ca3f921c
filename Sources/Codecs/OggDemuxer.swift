/// One packet out of an Ogg physical stream.
public struct OggPacket: Sendable, Equatable {
    public var serial: UInt32
    public var data: [UInt8]
    /// First packet of its logical stream (from a beginning-of-stream page).
    public var isBeginning: Bool
    /// Last packet of an end-of-stream page.
    public var isEnd: Bool
    /// The page's granule position if this packet is the last one completed on its page, else -1.
    public var granule: Int64
}

/// A small Ogg page/packet demuxer (RFC 3533), ours because libogg is not linked: bytes in any
/// chunking, packets out. Pages with a bad checksum are skipped by searching for the next capture
/// pattern, so a stream that starts mid-page, or is cut by a reconnect, recovers at the next page.
public struct OggDemuxer: Sendable {
    /// Packets larger than this are dropped (a hostile or broken stream must not grow memory unbounded).
    public var maxPacketBytes: Int
    /// Pages dropped for a bad checksum, bad version, or junk skipped while searching for "OggS".
    public private(set) var skippedBytes = 0
    public private(set) var corruptPages = 0

    private var buffer: [UInt8] = []
    private var readOffset = 0
    private var partial: [UInt32: (bytes: [UInt8], dropping: Bool)] = [:]
    private var ready: [OggPacket] = []
    private var readyIndex = 0

    public init(maxPacketBytes: Int = 1 << 20) {
        self.maxPacketBytes = maxPacketBytes
    }

    public mutating func push(_ bytes: UnsafeRawBufferPointer) {
        if readOffset > 0, readOffset >= buffer.count / 2 {
            buffer.removeSubrange(0..<readOffset)
            readOffset = 0
        }
        buffer.append(contentsOf: bytes)
    }

    public mutating func push(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { push($0) }
    }

    /// The next complete packet, or nil until more bytes arrive.
    public mutating func nextPacket() -> OggPacket? {
        while readyIndex == ready.count {
            ready.removeAll(keepingCapacity: true)
            readyIndex = 0
            guard parsePage() else { return nil }
        }
        defer { readyIndex += 1 }
        return ready[readyIndex]
    }

    /// Forgets buffered bytes and partial packets (after a reconnect).
    public mutating func reset() {
        buffer.removeAll(keepingCapacity: true)
        readOffset = 0
        partial.removeAll()
        ready.removeAll()
        readyIndex = 0
    }

    /// Parses one page from the buffer into `ready`; false when more bytes are needed.
    private mutating func parsePage() -> Bool {
        while true {
            let available = buffer.count - readOffset
            guard available >= 27 else { return false }
            guard let start = findCapture() else {
                // Junk: keep only the last 3 bytes, which may begin a capture pattern.
                let keep = min(3, available)
                skippedBytes += available - keep
                readOffset = buffer.count - keep
                return false
            }
            if start > readOffset {
                skippedBytes += start - readOffset
                readOffset = start
                continue
            }
            let segmentCount = Int(buffer[readOffset + 26])
            let headerLength = 27 + segmentCount
            guard buffer.count - readOffset >= headerLength else { return false }
            var bodyLength = 0
            for index in 0..<segmentCount { bodyLength += Int(buffer[readOffset + 27 + index]) }
            guard buffer.count - readOffset >= headerLength + bodyLength else { return false }
            let pageRange = readOffset..<(readOffset + headerLength + bodyLength)
            let valid =
                buffer[readOffset + 4] == 0
                && buffer.withUnsafeBufferPointer { all in
                    let page = UnsafeBufferPointer(rebasing: all[pageRange])
                    return OggCRC.checksum(page, crcFieldAt: 22) == readLE32(at: readOffset + 22)
                }
            guard valid else {
                corruptPages += 1
                skippedBytes += 1
                readOffset += 1
                continue
            }
            collectPackets(pageAt: readOffset, segmentCount: segmentCount, headerLength: headerLength)
            readOffset = pageRange.upperBound
            return true
        }
    }

    private mutating func collectPackets(pageAt page: Int, segmentCount: Int, headerLength: Int) {
        let flags = buffer[page + 5]
        let beginning = flags & 0x02 != 0
        let end = flags & 0x04 != 0
        var granule: UInt64 = 0
        for index in 0..<8 { granule |= UInt64(buffer[page + 6 + index]) << (8 * UInt64(index)) }
        let serial = readLE32(at: page + 14)
        var packet: [UInt8] = []
        var dropping = false
        if flags & 0x01 != 0 {
            // A continued packet whose start we never saw (joined mid-stream, lost page) is dropped.
            if let carried = partial.removeValue(forKey: serial) { (packet, dropping) = carried } else { dropping = true }
        } else {
            partial[serial] = nil
        }
        var offset = page + headerLength
        var firstOnPage = true
        var lastCompleted: Int?
        for index in 0..<segmentCount {
            let length = Int(buffer[page + 27 + index])
            if !dropping {
                if packet.count + length <= maxPacketBytes {
                    packet.append(contentsOf: buffer[offset..<(offset + length)])
                } else {
                    dropping = true
                    packet.removeAll()
                }
            }
            offset += length
            guard length < 255 else { continue }
            if !dropping {
                ready.append(
                    OggPacket(
                        serial: serial, data: packet, isBeginning: beginning && firstOnPage,
                        isEnd: false, granule: -1))
                lastCompleted = ready.count - 1
            }
            firstOnPage = false
            dropping = false
            packet.removeAll(keepingCapacity: true)
        }
        if segmentCount > 0, buffer[page + 27 + segmentCount - 1] == 255 {
            partial[serial] = (packet, dropping)
        }
        if let lastCompleted {
            ready[lastCompleted].granule = Int64(bitPattern: granule)
            ready[lastCompleted].isEnd = end
        }
    }

    private func findCapture() -> Int? {
        var index = readOffset
        while index + 4 <= buffer.count {
            if buffer[index] == 0x4F, buffer[index + 1] == 0x67, buffer[index + 2] == 0x67, buffer[index + 3] == 0x53 {
                return index
            }
            index += 1
        }
        return nil
    }

    private func readLE32(at offset: Int) -> UInt32 {
        UInt32(buffer[offset]) | UInt32(buffer[offset + 1]) << 8 | UInt32(buffer[offset + 2]) << 16 | UInt32(buffer[offset + 3]) << 24
    }
}
