/// The Ogg page checksum: CRC-32, polynomial 0x04C11DB7, initial value 0, no reflection, no final xor.
enum OggCRC {
    static let table: [UInt32] = (0..<256).map { index in
        var r = UInt32(index) << 24
        for _ in 0..<8 { r = (r & 0x8000_0000) != 0 ? (r << 1) ^ 0x04C1_1DB7 : r << 1 }
        return r
    }

    static func checksum(_ bytes: UnsafeBufferPointer<UInt8>, crcFieldAt crcOffset: Int? = nil) -> UInt32 {
        var crc: UInt32 = 0
        table.withUnsafeBufferPointer { table in
            for index in 0..<bytes.count {
                var byte = bytes[index]
                if let crcOffset, index >= crcOffset, index < crcOffset + 4 { byte = 0 }
                crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 24) ^ byte)]
            }
        }
        return crc
    }
}
