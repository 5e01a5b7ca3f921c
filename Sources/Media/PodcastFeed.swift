/// A podcast's RSS 2.0 feed: the channel title and its episodes (items with an audio enclosure).
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
            case let (l?, r?) where l != r: l > r
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
    /// Seconds since 1970 from `pubDate` (RFC 822), nil when absent or unreadable.
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

    /// Parses an RSS 2.0 feed. Items without a usable http(s) enclosure are skipped; relative enclosure
    /// URLs resolve against `base`.
    public init(parsing bytes: [UInt8], base: MediaURL? = nil) throws(PodcastFeedError) {
        var tokenizer = XMLTokenizer(bytes)
        var scopes: [[String: String]] = [["xml": "http://www.w3.org/XML/1998/namespace"]]
        var path: [(uri: String, local: String)] = []
        var text = ""
        var channelTitle: String?
        var item: ItemDraft?
        var episodes: [PodcastEpisode] = []
        var sawChannel = false

        func resolve(_ qualified: String, attribute: Bool = false) -> (uri: String, local: String) {
            let parts = qualified.split(separator: ":", maxSplits: 1)
            if parts.count == 2 {
                let prefix = String(parts[0])
                let uri = scopes.reversed().lazy.compactMap { $0[prefix] }.first ?? prefix
                return (uri, String(parts[1]))
            }
            if attribute { return ("", qualified) }
            return (scopes.reversed().lazy.compactMap { $0[""] }.first ?? "", qualified)
        }

        while let event = tokenizer.next() {
            switch event {
            case .start(let name, let attributes):
                var scope: [String: String] = [:]
                for attribute in attributes {
                    if attribute.name == "xmlns" { scope[""] = attribute.value }
                    else if attribute.name.hasPrefix("xmlns:") { scope[String(attribute.name.dropFirst(6))] = attribute.value }
                }
                scopes.append(scope)
                let element = resolve(name)
                path.append(element)
                text = ""
                let inRSS = element.uri.isEmpty || element.uri == "http://backend.userland.com/rss2"
                if inRSS, element.local == "channel" { sawChannel = true }
                if inRSS, element.local == "item", path.count >= 2, path[path.count - 2].local == "channel" { item = ItemDraft() }
                if inRSS, element.local == "enclosure", item != nil, item?.enclosure == nil {
                    var values: [String: String] = [:]
                    for attribute in attributes { values[resolve(attribute.name, attribute: true).local] = attribute.value }
                    item?.enclosure = values["url"]
                    item?.enclosureType = values["type"]
                    item?.enclosureLength = values["length"].flatMap { Int($0.trimmed()) }
                }
            case .text(let chunk):
                if text.utf8.count < 64 * 1_024 { text += chunk }
            case .end:
                guard let element = path.popLast() else { continue }
                scopes.removeLast()
                let value = text.trimmed()
                text = ""
                let parent = path.last?.local
                if element.uri.isEmpty {
                    switch (element.local, parent) {
                    case ("title", "channel"): channelTitle = channelTitle ?? value
                    case ("title", "item"): item?.title = value
                    case ("pubDate", "item"): item?.pubDate = value
                    case ("guid", "item"): item?.guid = value
                    case ("item", _):
                        if let draft = item, let episode = draft.episode(base: base) { episodes.append(episode) }
                        item = nil
                    default: break
                    }
                } else if element.uri == Self.itunesNamespace, parent == "item" {
                    switch element.local {
                    case "title": item?.itunesTitle = value
                    case "duration": item?.duration = Self.parseDuration(value)
                    case "episode": item?.episodeNumber = Int(value)
                    default: break
                    }
                }
            }
        }
        guard sawChannel else { throw PodcastFeedError(description: "not an RSS feed (no <channel>)") }
        title = channelTitle ?? ""
        self.episodes = episodes
    }

    /// "3600", "59:59", "1:02:03" (also "1:02:03.5"); nil when unreadable.
    static func parseDuration(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { $0.split(separator: ".").first.map(String.init) ?? "" }
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0
        for part in parts {
            guard let value = Int(part.trimmed()), value >= 0 else { return nil }
            total = total * 60 + value
        }
        return total
    }
}

private struct ItemDraft {
    var title: String?
    var itunesTitle: String?
    var enclosure: String?
    var enclosureType: String?
    var enclosureLength: Int?
    var pubDate: String?
    var guid: String?
    var duration: Int?
    var episodeNumber: Int?

    func episode(base: MediaURL?) -> PodcastEpisode? {
        guard let enclosure else { return nil }
        let url: MediaURL
        do {
            url = try base.map { (b) throws(MediaURLError) in try b.resolving(enclosure) } ?? MediaURL(parsing: enclosure)
        } catch {
            return nil
        }
        let name = [itunesTitle, title].compactMap { $0 }.first { !$0.isEmpty } ?? url.lastPathComponent
        return PodcastEpisode(title: name, enclosure: url, enclosureType: enclosureType, enclosureLength: enclosureLength,
                              published: pubDate.flatMap(RFC822Date.parse), pubDate: pubDate, durationSeconds: duration,
                              episodeNumber: episodeNumber, guid: guid)
    }
}
