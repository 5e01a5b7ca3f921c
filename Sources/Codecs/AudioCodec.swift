/// The compressed formats we play, chosen from a Content-Type and/or the first bytes of a body.
public enum AudioCodec: String, Sendable, Equatable, CaseIterable {
    case mp3
    case oggOpus = "ogg-opus"

    /// From a Content-Type header (parameters ignored); nil when it names nothing we play.
    public init?(contentType: String) {
        let type = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: " \t").lowercased() } ?? ""
        switch type {
        case "audio/mpeg", "audio/mp3", "audio/mpeg3", "audio/x-mpeg", "audio/x-mp3", "audio/mpg": self = .mp3
        case "audio/ogg", "application/ogg", "audio/opus", "audio/x-ogg", "audio/ogg; codecs=opus": self = .oggOpus
        default: return nil
        }
    }

    /// From the first bytes: "OggS" is Ogg; "ID3" or an MPEG audio frame sync is MP3 (an AAC ADTS
    /// header has the same sync but layer bits 00, which MPEG audio reserves: not ours).
    public init?(sniffing bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(4))
        if head.starts(with: Array("OggS".utf8)) {
            self = .oggOpus
        } else if head.starts(with: Array("ID3".utf8)) || (head.count >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0 && head[1] & 0x06 != 0) {
            self = .mp3
        } else {
            return nil
        }
    }

    public func makeDecoder() throws(CodecError) -> any StreamDecoder {
        switch self {
        case .mp3: try MP3Decoder()
        case .oggOpus: OggOpusDecoder()
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
