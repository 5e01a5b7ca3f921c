/// The compressed formats a stream may carry, chosen from its first bytes and its Content-Type.
public enum AudioCodec: String, Sendable, Equatable, CaseIterable {
    case mp3
    /// AAC, HE-AAC or HE-AAC v2 in ADTS frames.
    case aac
    case oggOpus = "ogg-opus"
    case oggVorbis = "ogg-vorbis"
    case oggFLAC = "ogg-flac"
    case flac
    /// AAC in an MP4/M4A file.
    case mp4

    /// The codecs this release plays.
    public static let playable: [AudioCodec] = [.mp3, .aac, .oggOpus, .oggVorbis, .flac, .oggFLAC, .mp4]

    /// "MP3, AAC, …": what to tell the owner a stream could be instead.
    public static var playableNames: String { playable.map(\.name).joined(separator: ", ") }

    /// The owner's name for it.
    public var name: String {
        switch self {
        case .mp3: "MP3"
        case .aac: "AAC"
        case .oggOpus: "Ogg Opus"
        case .oggVorbis: "Ogg Vorbis"
        case .oggFLAC: "Ogg FLAC"
        case .flac: "FLAC"
        case .mp4: "AAC in MP4 (M4A)"
        }
    }

    /// The codec of a stream: its first bytes decide when they are conclusive (servers mislabel, and
    /// "audio/ogg" names no codec), else its Content-Type, else an ID3 tag's guess of MP3.
    public static func of(contentType: String?, firstBytes: some Collection<UInt8>) -> AudioCodec? {
        let bytes = Array(firstBytes.prefix(4_096))
        if let sniffed = sniff(bytes) { return sniffed }
        if let declared = contentType.flatMap(AudioCodec.init(contentType:)) { return declared }
        return bytes.starts(with: Array("ID3".utf8)) ? .mp3 : nil
    }

    /// From a Content-Type header (parameters ignored); nil when it names no audio format.
    public init?(contentType: String) {
        let type = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: " \t").lowercased() } ?? ""
        switch type {
        case "audio/mpeg", "audio/mp3", "audio/mpeg3", "audio/x-mpeg", "audio/x-mp3", "audio/mpg": self = .mp3
        case "audio/aac", "audio/aacp", "audio/x-aac", "audio/adts", "audio/x-hx-aac-adts": self = .aac
        case "audio/ogg", "application/ogg", "audio/opus", "audio/x-ogg": self = .oggOpus
        case "audio/flac", "audio/x-flac": self = .flac
        case "audio/mp4", "audio/x-m4a", "audio/m4a", "video/mp4", "audio/x-m4b": self = .mp4
        default: return nil
        }
    }

    /// From the first bytes alone: the format's own marks, and the codec an Ogg stream's first packet
    /// names; past an ID3v2 tag when the bytes reach beyond it. Nil when they do not tell.
    public static func sniff(_ bytes: [UInt8]) -> AudioCodec? {
        if bytes.starts(with: Array("OggS".utf8)) { return oggCodec(bytes) }
        if bytes.starts(with: Array("fLaC".utf8)) { return .flac }
        if bytes.count >= 8, bytes[4..<8].elementsEqual("ftyp".utf8) { return .mp4 }
        if bytes.starts(with: Array("ID3".utf8)), bytes.count >= 10, bytes[6..<10].allSatisfy({ $0 < 0x80 }) {
            let size = bytes[6..<10].reduce(0) { $0 << 7 | Int($1) } + 10 + (bytes[5] & 0x10 != 0 ? 10 : 0)
            return size < bytes.count ? sniff(Array(bytes[size...])) : nil
        }
        guard bytes.count >= 2, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0 else { return nil }
        // ADTS has layer bits 00, which MPEG audio reserves
        return bytes[1] & 0x06 == 0 ? (bytes[1] & 0xF6 == 0xF0 ? .aac : nil) : .mp3
    }

    /// An Ogg stream's codec from its first page's first packet; Opus when the page is cut short
    /// (its decoder refuses other codecs by name once it sees them).
    private static func oggCodec(_ bytes: [UInt8]) -> AudioCodec {
        guard bytes.count > 27 else { return .oggOpus }
        let packet = 27 + Int(bytes[26])
        guard packet < bytes.count else { return .oggOpus }
        let head = bytes[packet...]
        if head.starts(with: [0x01] + Array("vorbis".utf8)) { return .oggVorbis }
        if head.starts(with: [0x7F] + Array("FLAC".utf8)) { return .oggFLAC }
        return .oggOpus
    }

    public func makeDecoder() throws(CodecError) -> any StreamDecoder {
        switch self {
        case .mp3: return try MP3Decoder()
        case .aac: return AACDecoder()
        case .oggOpus: return OggOpusDecoder()
        case .oggVorbis: return OggVorbisDecoder()
        case .flac: return FLACDecoder(container: .native)
        case .oggFLAC: return FLACDecoder(container: .ogg)
        case .mp4: return MP4Decoder()
        }
    }
}

extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice.removeFirst() }
        while let last = slice.last, set.contains(last) { slice.removeLast() }
        return String(slice)
    }
}
