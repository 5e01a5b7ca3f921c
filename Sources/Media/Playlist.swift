import Basics

/// A PLS or M3U/M3U8 playlist as radio stations publish them; the player wants the first entry it
/// can play (an absolute or relative http(s) URL).
public struct Playlist: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        case pls
        case m3u
    }

    public struct Entry: Sendable, Equatable {
        public var url: MediaURL
        public var title: String?
    }

    public var kind: Kind
    public var entries: [Entry]
    /// Lines that were not usable (other schemes, garbage), counted for the log.
    public var rejectedEntries: Int

    /// The first playable stream, or an error saying why there is none.
    public func firstStream() throws(PlaylistError) -> MediaURL {
        guard let first = entries.first else { throw PlaylistError.noUsableEntry(kind: kind, rejected: rejectedEntries) }
        return first.url
    }

    /// Detects a playlist from its Content-Type, URL or first bytes; nil when it looks like audio.
    public static func kind(contentType: String?, url: MediaURL?, body: some Collection<UInt8>) -> Kind? {
        let type = contentType?.split(separator: ";").first.map { $0.trimmed().lowercased() } ?? ""
        switch type {
        case "audio/x-scpls", "audio/scpls", "application/pls+xml", "application/pls": return .pls
        case "audio/x-mpegurl", "audio/mpegurl", "application/x-mpegurl", "application/vnd.apple.mpegurl",
            "application/mpegurl", "audio/x-mpequrl":
            return .m3u
        default: break
        }
        let head = String(decoding: body.prefix(64), as: UTF8.self).trimmed().lowercased()
        if head.hasPrefix("[playlist]") { return .pls }
        if head.hasPrefix("#extm3u") { return .m3u }
        let name = url?.lastPathComponent ?? ""
        if name.hasSuffix(".pls") { return .pls }
        if name.hasSuffix(".m3u") || name.hasSuffix(".m3u8") { return .m3u }
        return nil
    }

    /// Parses `body` (UTF-8, else windows-1252) of the given kind; relative entries resolve against
    /// `base` (RFC 3986). At most `maxEntries` entries are kept.
    public init(parsing body: [UInt8], kind: Kind, base: MediaURL?) throws(PlaylistError) {
        let text = TextDecoding.utf8OrWindows1252(body)
        self.kind = kind
        entries = []
        rejectedEntries = 0
        switch kind {
        case .pls: parsePLS(text, base: base)
        case .m3u: try parseM3U(text, base: base)
        }
    }

    /// A radio playlist lists a handful of mirrors; an IPTV list a few thousand channels.
    public static let maxEntries = 10_000

    private mutating func add(_ text: String, title: String?, base: MediaURL?) {
        guard entries.count < Self.maxEntries else { return }
        let reference = MediaURL.encodingSpaces(text)
        do {
            let url = try base.map { (b) throws(MediaURLError) in try b.resolving(reference) } ?? MediaURL(parsing: reference)
            entries.append(Entry(url: url, title: title.flatMap { $0.isEmpty ? nil : $0 }))
        } catch {
            rejectedEntries += 1
        }
    }

    private mutating func parsePLS(_ text: String, base: MediaURL?) {
        var files: [Int: String] = [:]
        var titles: [Int: String] = [:]
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmed()
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmed().lowercased()
            let value = line[line.index(after: equals)...].trimmed()
            if key.hasPrefix("file"), let number = Int(key.dropFirst(4)) {
                files[number] = value
            } else if key.hasPrefix("title"), let number = Int(key.dropFirst(5)) {
                titles[number] = value
            }
        }
        for number in files.keys.sorted() {
            add(files[number]!, title: titles[number], base: base)
        }
    }

    private mutating func parseM3U(_ text: String, base: MediaURL?) throws(PlaylistError) {
        var pendingTitle: String?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmed()
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                let upper = line.uppercased()
                if upper.hasPrefix("#EXT-X-TARGETDURATION") || upper.hasPrefix("#EXT-X-STREAM-INF") || upper.hasPrefix("#EXT-X-MEDIA-SEQUENCE") {
                    throw PlaylistError.hls
                }
                if upper.hasPrefix("#EXTINF:") { pendingTitle = Self.extinfTitle(line) }
                continue
            }
            add(line, title: pendingTitle, base: base)
            pendingTitle = nil
        }
    }
}

extension Playlist {
    /// The title after the first comma outside double quotes: `#EXTINF:-1 tvg-name="a,b" group-title="x",Title`.
    static func extinfTitle(_ line: String) -> String? {
        var quoted = false
        for index in line.indices {
            switch line[index] {
            case "\"": quoted.toggle()
            case "," where !quoted: return line[line.index(after: index)...].trimmed()
            default: break
            }
        }
        return nil
    }
}

public enum PlaylistError: Error, CustomStringConvertible, Equatable, Sendable {
    case noUsableEntry(kind: Playlist.Kind, rejected: Int)
    /// An HLS media playlist (segments); we play continuous streams only.
    case hls

    public var description: String {
        switch self {
        case .noUsableEntry(let kind, let rejected):
            "the \(kind.rawValue.uppercased()) playlist has no http(s) stream entry" + (rejected > 0 ? " (\(rejected) unusable entries)" : "")
        case .hls: "the playlist is HLS (a list of segments), not a list of streams"
        }
    }
}
