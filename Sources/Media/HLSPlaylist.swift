import Basics

/// An HLS playlist (RFC 8216): a master playlist's variants and audio renditions, or a media playlist's
/// segments. Ours, as the other playlist formats are: line-based text with a few tags; unknown tags
/// are ignored, counts are bounded, every URI resolves against the playlist's own URL.
public struct HLSPlaylist: Sendable, Equatable {
    public static let maxEntries = 10_000

    public struct Variant: Sendable, Equatable {
        public var url: MediaURL
        public var bandwidth: Int
        public var codecs: String?
        /// The `GROUP-ID` of its audio renditions (`AUDIO=`), if its audio is apart from it.
        public var audioGroup: String?

        /// Audio only: its codecs name no video.
        public var isAudioOnly: Bool {
            guard let codecs else { return false }
            return !codecs.split(separator: ",").contains { ["avc", "hvc", "hev", "vp0", "av01"].contains(where: $0.trimmed().hasPrefix) }
        }
    }

    public struct Rendition: Sendable, Equatable {
        public var url: MediaURL
        public var group: String
        public var isDefault: Bool
    }

    public struct Segment: Sendable, Equatable {
        public var url: MediaURL
        public var sequence: Int
        public var duration: Double
    }

    public var variants: [Variant] = []
    public var audioRenditions: [Rendition] = []
    public var segments: [Segment] = []
    public var targetDuration: Double = 0
    /// `#EXT-X-ENDLIST`: on demand (or a finished event), not live.
    public var ended = false
    /// `#EXT-X-MAP`: the fMP4 initialization section.
    public var initialization: MediaURL?
    /// The segments are encrypted (`#EXT-X-KEY` with a method other than NONE).
    public var encrypted = false

    public var isMaster: Bool { !variants.isEmpty }

    /// Whether `text` is HLS at all (its tags, not just `#EXTM3U`).
    public static func isHLS(_ text: String) -> Bool {
        ["#EXT-X-TARGETDURATION", "#EXT-X-STREAM-INF", "#EXT-X-MEDIA-SEQUENCE"].contains { text.uppercased().contains($0) }
    }

    public init(parsing text: String, base: MediaURL) {
        var sequence = 0
        var pendingDuration: Double?
        var pendingVariant: [String: String]?
        for rawLine in text.split(whereSeparator: \.isNewline).prefix(4 * Self.maxEntries) {
            let line = rawLine.trimmed()
            if line.isEmpty { continue }
            guard line.hasPrefix("#") else {
                guard let url = try? base.resolving(line) else { continue }
                if let attributes = pendingVariant, variants.count < Self.maxEntries {
                    variants.append(
                        Variant(
                            url: url, bandwidth: Int(attributes["BANDWIDTH"] ?? "") ?? 0, codecs: attributes["CODECS"],
                            audioGroup: attributes["AUDIO"]))
                } else if let duration = pendingDuration, segments.count < Self.maxEntries {
                    segments.append(Segment(url: url, sequence: sequence, duration: duration))
                    sequence += 1
                }
                pendingVariant = nil
                pendingDuration = nil
                continue
            }
            let (tag, value) = Self.split(line)
            switch tag {
            case "#EXT-X-STREAM-INF": pendingVariant = Self.attributes(value)
            case "#EXTINF": pendingDuration = Double(value.split(separator: ",").first.map(String.init)?.trimmed() ?? "") ?? 0
            case "#EXT-X-TARGETDURATION": targetDuration = Double(value) ?? 0
            case "#EXT-X-MEDIA-SEQUENCE": sequence = max(0, Int(value) ?? 0)
            case "#EXT-X-ENDLIST": ended = true
            case "#EXT-X-MAP": initialization = Self.attributes(value)["URI"].flatMap { try? base.resolving($0) }
            case "#EXT-X-KEY": encrypted = encrypted || (Self.attributes(value)["METHOD"].map { $0 != "NONE" } ?? false)
            case "#EXT-X-MEDIA":
                let attributes = Self.attributes(value)
                if attributes["TYPE"] == "AUDIO", let uri = attributes["URI"], let url = try? base.resolving(uri),
                    audioRenditions.count < Self.maxEntries
                {
                    audioRenditions.append(Rendition(url: url, group: attributes["GROUP-ID"] ?? "", isDefault: attributes["DEFAULT"] == "YES"))
                }
            default: break
            }
        }
    }

    /// The audio to play from a master playlist: the audio-only variant with the highest bandwidth
    /// within `maxBandwidth` (the lowest when none is), else a video variant's audio rendition, else
    /// the lowest-bandwidth variant (its audio is played, its video ignored).
    public func audioPlaylist(maxBandwidth: Int) -> MediaURL? {
        let audioOnly = variants.filter(\.isAudioOnly)
        if let pick = Self.pick(audioOnly, maxBandwidth: maxBandwidth) { return pick.url }
        for variant in variants.sorted(by: { $0.bandwidth < $1.bandwidth }) {
            let renditions = audioRenditions.filter { $0.group == variant.audioGroup }
            if let rendition = renditions.first(where: \.isDefault) ?? renditions.first { return rendition.url }
        }
        return variants.min { $0.bandwidth < $1.bandwidth }?.url
    }

    private static func pick(_ variants: [Variant], maxBandwidth: Int) -> Variant? {
        variants.filter { $0.bandwidth <= maxBandwidth }.max { $0.bandwidth < $1.bandwidth } ?? variants.min { $0.bandwidth < $1.bandwidth }
    }

    private static func split(_ line: String) -> (tag: String, value: String) {
        guard let colon = line.firstIndex(of: ":") else { return (line.uppercased(), "") }
        return (line[..<colon].uppercased(), String(line[line.index(after: colon)...]))
    }

    /// `KEY=VALUE,KEY="quoted, with commas"` (RFC 8216 §4.2).
    public static func attributes(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        var key = ""
        var value = ""
        var inValue = false
        var quoted = false
        for character in text {
            switch character {
            case "\"" where inValue: quoted.toggle()
            case "=" where !inValue: inValue = true
            case "," where !quoted:
                if !key.isEmpty, result.count < 64 { result[key.trimmed().uppercased()] = value }
                key = ""
                value = ""
                inValue = false
            default:
                if inValue { value.append(character) } else { key.append(character) }
            }
        }
        if !key.isEmpty, result.count < 64 { result[key.trimmed().uppercased()] = value }
        return result
    }
}
