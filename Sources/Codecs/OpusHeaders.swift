/// The identification header of an Ogg Opus stream (RFC 7845 §5.1).
public struct OpusHead: Sendable, Equatable {
    public var channels: Int
    public var preSkip: Int
    public var inputSampleRate: Int
    /// Q7.8 dB, applied by the decoder.
    public var outputGain: Int
    public var mappingFamily: Int
    public var streamCount: Int
    public var coupledCount: Int
    public var mapping: [UInt8]

    public init(parsing packet: [UInt8]) throws(CodecError) {
        func invalid(_ why: String) -> CodecError {
            CodecError(kind: .invalidStream, codec: "opus", function: "OpusHead", message: why)
        }
        guard packet.count >= 19, packet.starts(with: Array("OpusHead".utf8)) else { throw invalid("not an OpusHead packet") }
        guard packet[8] >> 4 == 0 else {
            throw CodecError(kind: .unsupported, codec: "opus", function: "OpusHead", message: "version \(packet[8])")
        }
        channels = Int(packet[9])
        preSkip = Int(packet[10]) | Int(packet[11]) << 8
        inputSampleRate = Int(packet[12]) | Int(packet[13]) << 8 | Int(packet[14]) << 16 | Int(packet[15]) << 24
        outputGain = Int(Int16(bitPattern: UInt16(packet[16]) | UInt16(packet[17]) << 8))
        mappingFamily = Int(packet[18])
        guard channels > 0 else { throw invalid("zero channels") }
        if mappingFamily == 0 {
            guard channels <= 2 else { throw invalid("\(channels) channels with mapping family 0") }
            streamCount = 1
            coupledCount = channels - 1
            mapping = channels == 1 ? [0] : [0, 1]
        } else {
            guard packet.count >= 21 + channels else { throw invalid("channel mapping table is truncated") }
            streamCount = Int(packet[19])
            coupledCount = Int(packet[20])
            mapping = Array(packet[21..<(21 + channels)])
            guard streamCount > 0, coupledCount <= streamCount else { throw invalid("\(streamCount) streams, \(coupledCount) coupled") }
        }
    }
}

/// A Vorbis comment header: vendor and `KEY=value` comments (keys upper-cased). Opus (OpusTags, RFC 7845
/// §5.2), Vorbis (its comment header) and FLAC (its VORBIS_COMMENT block) all carry one after their own magic.
public struct VorbisComments: Sendable, Equatable {
    public static let opusMagic = Array("OpusTags".utf8)
    public static let vorbisMagic: [UInt8] = [0x03] + Array("vorbis".utf8)

    public var vendor: String
    public var comments: [(key: String, value: String)]

    public static func == (lhs: VorbisComments, rhs: VorbisComments) -> Bool {
        lhs.vendor == rhs.vendor && lhs.comments.elementsEqual(rhs.comments) { $0.key == $1.key && $0.value == $1.value }
    }

    /// Parses `packet`, which must start with `magic` (empty for a bare comment block).
    public init(parsing packet: [UInt8], after magic: [UInt8]) throws(CodecError) {
        var reader = ByteReader(packet)
        guard packet.starts(with: magic) else {
            throw CodecError(kind: .invalidStream, codec: "ogg", function: "comment header", message: "not a comment header")
        }
        reader.offset = magic.count
        guard let vendorBytes = reader.lengthPrefixed(), let count = reader.le32() else {
            throw CodecError(kind: .invalidStream, codec: "ogg", function: "comment header", message: "truncated vendor string")
        }
        vendor = String(decoding: vendorBytes, as: UTF8.self)
        comments = []
        for _ in 0..<min(Int(count), 1_000) {
            guard let bytes = reader.lengthPrefixed() else { break }
            let text = String(decoding: bytes, as: UTF8.self)
            guard let equals = text.firstIndex(of: "=") else { continue }
            comments.append((String(text[..<equals]).uppercased(), String(text[text.index(after: equals)...])))
        }
    }

    public func value(_ key: String) -> String? {
        let wanted = key.uppercased()
        return comments.first { $0.key == wanted }?.value
    }

    /// "ARTIST - TITLE", or whichever of the two exists.
    public var streamTitle: String? {
        switch (value("ARTIST"), value("TITLE")) {
        case (let artist?, let title?): "\(artist) - \(title)"
        case (nil, let title?): title
        case (let artist?, nil): artist
        case (nil, nil): nil
        }
    }
}

struct ByteReader {
    let bytes: [UInt8]
    var offset = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func le32() -> UInt32? {
        guard offset + 4 <= bytes.count else { return nil }
        defer { offset += 4 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }

    mutating func lengthPrefixed() -> ArraySlice<UInt8>? {
        guard let length = le32(), offset + Int(length) <= bytes.count else { return nil }
        defer { offset += Int(length) }
        return bytes[offset..<(offset + Int(length))]
    }
}
