import Basics

/// A podcast's RSS 2.0 or Atom feed: the channel title and its episodes (items with an audio enclosure).
public struct PodcastFeed: Sendable, Equatable {
    public var title: String
    /// In document order (feeds usually list newest first, but not always: see `latest`).
    public var episodes: [PodcastEpisode]

    /// The newest episode by publication date (document order breaks ties and covers missing dates).
    public var latest: PodcastEpisode? { newestFirst.first }

    /// Episodes newest first.
    public var newestFirst: [PodcastEpisode] {
        episodes.enumerated().sorted { lhs, rhs in
            switch (lhs.element.published, rhs.element.published) {
            case (let l?, let r?) where l != r: l > r
            case (.some, nil): true
            case (nil, .some): false
            default: lhs.offset < rhs.offset
            }
        }.map(\.element)
    }

    /// The episode with this `itunes:episode` number (the latest such if seasons repeat numbers).
    public func episode(number: Int) -> PodcastEpisode? {
        newestFirst.first { $0.episodeNumber == number }
    }

    /// The n-th newest episode, 0 = latest.
    public func episode(fromLatest index: Int) -> PodcastEpisode? {
        let sorted = newestFirst
        return sorted.indices.contains(index) ? sorted[index] : nil
    }
}

public struct PodcastEpisode: Sendable, Equatable {
    /// `itunes:title` when present (shows put the bare title there), else the item's title.
    public var title: String
    public var enclosure: MediaURL
    public var enclosureType: String?
    public var enclosureLength: Int?
    /// Seconds since 1970 from `pubDate` (RFC 822 or ISO 8601; Atom `published`, else `dc:date` or
    /// `updated`), nil when absent or unreadable.
    public var published: Int64?
    public var pubDate: String?
    /// Seconds, from `itunes:duration` ("3600", "59:59", "1:02:03").
    public var durationSeconds: Int?
    public var episodeNumber: Int?
    public var guid: String?
}

public struct PodcastFeedError: Error, CustomStringConvertible, Equatable, Sendable {
    public var description: String
}

extension PodcastFeed {
    static let itunesNamespace = "http://www.itunes.com/dtds/podcast-1.0.dtd"
    static let atomNamespaces: Set<String> = ["http://www.w3.org/2005/atom", "http://purl.org/atom/ns#"]
    /// RSS 2.0 has no namespace; some feeds declare one of these as the default.
    static let rssNamespaces: Set<String> = [
        "", "http://backend.userland.com/rss2", "http://backend.userland.com/rss",
        "http://blogs.law.harvard.edu/tech/rss", "http://purl.org/rss/2.0/"
    ]
    static let dublinCoreNamespace = "http://purl.org/dc/elements/1.1/"
    /// Real feeds nest a dozen levels; deeper input is hostile and refused.
    public static let maxDepth = 256
    /// Items after this many are ignored (a real feed has at most a few thousand).
    public static let maxEpisodes = 50_000
    static let maxTextBytes = 64 * 1_024

    private enum Dialect { case rss, atom, other }

    /// Parses an RSS 2.0 or Atom feed. Items without a usable http(s) enclosure are skipped; relative
    /// enclosure URLs resolve against `base`. Linear in the input; nesting deeper than `maxDepth` is an
    /// error.
    public init(parsing bytes: [UInt8], base: MediaURL? = nil) throws(PodcastFeedError) {
        var tokenizer = XMLTokenizer(bytes)
        var namespaces = XMLNamespaces()
        var path: [(dialect: Dialect, uri: String, local: String)] = []
        var text = ""
        var channelTitle: String?
        var item: ItemDraft?
        var episodes: [PodcastEpisode] = []
        var sawChannel = false

        func dialect(_ uri: String) -> Dialect {
            if Self.rssNamespaces.contains(uri) { return .rss }
            if Self.atomNamespaces.contains(uri.lowercased()) { return .atom }
            return .other
        }

        while let event = tokenizer.next() {
            switch event {
            case .start(let name, let attributes):
                guard path.count < Self.maxDepth else {
                    throw PodcastFeedError(description: "the feed nests elements deeper than \(Self.maxDepth) levels")
                }
                namespaces.push(attributes)
                let resolved = namespaces.resolve(name)
                let element = (dialect: dialect(resolved.uri), uri: resolved.uri, local: resolved.local)
                let parent = path.last
                path.append(element)
                text = ""
                let inItem = parent?.local == "item" || parent?.local == "entry"
                guard element.dialect != .other else { continue }
                switch element.local {
                case "channel", "feed":
                    sawChannel = true
                case "item" where parent?.local == "channel" || parent?.local == "feed",
                    "entry" where parent?.local == "feed" || parent?.local == "channel":
                    item = episodes.count < Self.maxEpisodes ? ItemDraft() : nil
                case "enclosure" where inItem && item?.enclosure == nil:
                    let values = Self.localAttributes(attributes, namespaces)
                    item?.setEnclosure(url: values["url"], type: values["type"], length: values["length"])
                case "link" where inItem && item?.enclosure == nil:
                    // Atom's enclosure link (also seen inside RSS items); old feeds put the URL in the text.
                    let values = Self.localAttributes(attributes, namespaces)
                    if values["rel"]?.trimmed().lowercased() == "enclosure" {
                        item?.setEnclosure(url: values["href"], type: values["type"], length: values["length"])
                        let opened = item?.enclosure == nil
                        item?.enclosureInLinkText = opened
                    }
                default:
                    break
                }
            case .text(let chunk):
                let room = Self.maxTextBytes - text.utf8.count
                if room >= chunk.utf8.count {
                    text += chunk
                } else if room > 0 {
                    text += String(decoding: chunk.utf8.prefix(room), as: UTF8.self)
                }
            case .end:
                guard let element = path.popLast() else { continue }
                namespaces.pop()
                let value = text.trimmed()
                text = ""
                let parent = path.last?.local
                let inItem = parent == "item" || parent == "entry"
                switch element.dialect {
                case .rss, .atom:
                    switch element.local {
                    case "title" where parent == "channel" || parent == "feed": channelTitle = channelTitle ?? value
                    case "title" where inItem: item?.title = value
                    case "pubDate" where inItem, "published" where inItem, "issued" where inItem: item?.pubDate = value
                    case "updated" where inItem, "modified" where inItem: item?.updated = value
                    case "guid" where inItem, "id" where inItem: item?.guid = value
                    case "link" where inItem && item?.enclosureInLinkText == true:
                        item?.enclosureInLinkText = false
                        item?.setEnclosure(url: value, type: nil, length: nil)
                    case "item" where parent == "channel" || parent == "feed", "entry" where parent == "channel" || parent == "feed":
                        if let draft = item, let episode = draft.episode(base: base) { episodes.append(episode) }
                        item = nil
                    default: break
                    }
                case .other where inItem && element.uri.lowercased() == Self.itunesNamespace:
                    switch element.local {
                    case "title": item?.itunesTitle = value
                    case "duration": item?.duration = Self.parseDuration(value)
                    case "episode": item?.episodeNumber = DecimalField.parse(value, maxDigits: 9)
                    default: break
                    }
                case .other where inItem && element.uri == Self.dublinCoreNamespace && element.local == "date":
                    if item?.updated == nil { item?.updated = value }
                case .other:
                    break
                }
            }
        }
        guard sawChannel else { throw PodcastFeedError(description: "not an RSS or Atom feed (no <channel> or <feed>)") }
        title = channelTitle ?? ""
        self.episodes = episodes
    }

    /// An element's attributes by local name.
    static func localAttributes(_ attributes: [XMLAttribute], _ namespaces: XMLNamespaces) -> [String: String] {
        var values: [String: String] = [:]
        for attribute in attributes { values[namespaces.resolve(attribute.name, attribute: true).local] = attribute.value }
        return values
    }

    /// "3600", "59:59", "1:02:03" (also "1:02:03.5"); nil when unreadable or longer than a year.
    static func parseDuration(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { $0.split(separator: ".").first.map(String.init) ?? "" }
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0
        for part in parts {
            guard let value = DecimalField.parse(part.trimmed(), maxDigits: 9) else { return nil }
            let (minutes, overflow) = total.multipliedReportingOverflow(by: 60)
            let (sum, carry) = minutes.addingReportingOverflow(value)
            guard !overflow, !carry else { return nil }
            total = sum
        }
        return total <= 366 * 86_400 ? total : nil
    }
}

private struct ItemDraft {
    var title: String?
    var itunesTitle: String?
    var enclosure: String?
    var enclosureType: String?
    var enclosureLength: Int?
    var pubDate: String?
    /// `dc:date` or Atom's `updated`: used when there is no publication date.
    var updated: String?
    /// An enclosure `<link>` without `href` is open: its text is the URL.
    var enclosureInLinkText = false
    var guid: String?
    var duration: Int?
    var episodeNumber: Int?

    mutating func setEnclosure(url: String?, type: String?, length: String?) {
        guard let url, !url.trimmed().isEmpty else { return }
        enclosure = url
        enclosureType = type
        enclosureLength = length.flatMap { DecimalField.parse($0.trimmed(), maxDigits: 15) }
    }

    func episode(base: MediaURL?) -> PodcastEpisode? {
        guard let enclosure = enclosure.map(MediaURL.encodingSpaces) else { return nil }
        let url: MediaURL
        do {
            url = try base.map { (b) throws(MediaURLError) in try b.resolving(enclosure) } ?? MediaURL(parsing: enclosure)
        } catch {
            return nil
        }
        let name = [itunesTitle, title].compactMap { $0 }.first { !$0.isEmpty } ?? url.lastPathComponent
        return PodcastEpisode(
            title: name, enclosure: url, enclosureType: enclosureType, enclosureLength: enclosureLength,
            published: (pubDate ?? updated).flatMap(FeedDate.parse), pubDate: pubDate ?? updated, durationSeconds: duration,
            episodeNumber: episodeNumber, guid: guid)
    }
}
