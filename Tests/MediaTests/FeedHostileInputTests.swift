import Testing

@testable import Media

/// Feeds written to break the parser: numbers that overflow, nesting that was quadratic. Each must give
/// a parse result or a `PodcastFeedError`, never a trap or a hang.
@Suite struct FeedHostileInputTests {
    static func feed(item: String) -> [UInt8] {
        Array("<rss><channel><title>T</title><item><title>E</title><enclosure url=\"https://h/e.mp3\"/>\(item)</item></channel></rss>".utf8)
    }

    @Test(arguments: [
        "<pubDate>1 Jan 999999999999 0:0</pubDate>",
        "<pubDate>1 Jan 2024 9999999999999999:0</pubDate>",
        "<pubDate>1 Jan 2024 0:9999999999999999999</pubDate>",
        "<pubDate>99999999999999999999 Jan 2024 0:0</pubDate>",
        "<pubDate>1 Jan 2024 0:0 +99999999999999</pubDate>",
        "<pubDate>999999999999-01-01T00:00:00Z</pubDate>",
        "<pubDate>2024-01-01T99999999999999999:00Z</pubDate>"
    ])
    func overflowingDatesAreUnreadableNotFatal(_ item: String) throws {
        let feed = try PodcastFeed(parsing: Self.feed(item: item))
        #expect(feed.episodes.count == 1)
        #expect(feed.episodes[0].published == nil)
    }

    @Test(arguments: [
        "999999999999999999:0", "0:999999999999999999", "9223372036854775807", "99999999999999999999",
        "153722867280912930:0:0", "-1:00", "1:2:3:4"
    ])
    func overflowingDurationsAreUnreadableNotFatal(_ text: String) throws {
        let feed = try PodcastFeed(
            parsing: Self.feed(item: "<itunes:duration xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\">\(text)</itunes:duration>"))
        #expect(feed.episodes.first?.durationSeconds == nil)
        #expect(PodcastFeed.parseDuration(text) == nil)
    }

    @Test func episodeNumbersAndLengthsOutOfRangeAreDropped() throws {
        let feed = try PodcastFeed(
            parsing: Array(
                """
                <rss xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><item>
                <enclosure url="https://h/e.mp3" length="99999999999999999999999"/><itunes:episode>99999999999999999999</itunes:episode>
                </item></channel></rss>
                """.utf8))
        #expect(feed.episodes.first?.episodeNumber == nil)
        #expect(feed.episodes.first?.enclosureLength == nil)
    }

    /// 320,000 unclosed `<a>` (960 KB) took 20 s when namespace resolution walked the whole scope stack;
    /// now nesting is refused past `maxDepth`.
    @Test func deepNestingIsRefusedQuickly() {
        let bytes = Array("<rss><channel>".utf8) + Array(repeating: Array("<a>".utf8), count: 320_000).flatMap { $0 }
        #expect(throws: PodcastFeedError.self) { try PodcastFeed(parsing: bytes) }
        do {
            _ = try PodcastFeed(parsing: bytes)
        } catch {
            #expect(error.description.contains("deeper than \(PodcastFeed.maxDepth)"))
        }
    }

    /// Linear time: many elements each declaring namespaces at depth just under the limit, 1x and 8x.
    /// The 8x input must not take more than 8 × 4 the time (quadratic behaviour would be ~64x). The
    /// best of three runs of each size is compared, so a loaded machine slows both alike.
    @Test func parsingTimeGrowsLinearlyWithInput() throws {
        func document(blocks: Int) -> [UInt8] {
            var text = "<rss xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\"><channel><title>T</title>"
            let depth = PodcastFeed.maxDepth - 10
            let open = (0..<depth).map { "<x\($0) xmlns:p\($0 % 7)=\"urn:\($0)\">" }.joined()
            let close = (0..<depth).reversed().map { "</x\($0)>" }.joined()
            for block in 0..<blocks {
                text += "<item><title>E\(block)</title><enclosure url=\"https://h/\(block).mp3\"/><itunes:duration>1:00</itunes:duration>"
                text += open + "<p3:y>&amp;&eacute;</p3:y>" + close + "</item>"
            }
            return Array((text + "</channel></rss>").utf8)
        }
        func bestTime(_ bytes: [UInt8], expecting episodes: Int) throws -> Duration {
            var best = Duration.seconds(1_000)
            for _ in 0..<3 {
                let clock = ContinuousClock()
                var count = 0
                let elapsed = try clock.measure { count = try PodcastFeed(parsing: bytes).episodes.count }
                #expect(count == episodes)
                best = min(best, elapsed)
            }
            return best
        }
        let small = try bestTime(document(blocks: 20), expecting: 20)
        let large = try bestTime(document(blocks: 160), expecting: 160)
        let ratio = large / small
        #expect(ratio < 32, "8x the input took \(ratio)x the time (\(small) vs \(large))")
    }

    @Test func hugeAttributeAndTextRunsAreBounded() throws {
        let text = String(repeating: "t", count: 200_000)
        let feed = try PodcastFeed(
            parsing: Array("<rss><channel><item><title>\(text)</title><enclosure url=\"https://h/a.mp3\" x=\"\(text)\"/></item></channel></rss>".utf8)
        )
        #expect(feed.episodes.count == 1)
        #expect(feed.episodes[0].title.utf8.count <= PodcastFeed.maxTextBytes + 3)
    }

    @Test(arguments: [
        "<", "<!", "<![CDATA[", "<!--", "<?", "</", "<a b='", "<a b=", "&#xFFFFFFFFFF;", "&#0;",
        "<rss><channel><item><enclosure url='http://h/a.mp3'/>"
    ])
    func truncatedInputEndsCleanly(_ text: String) {
        _ = try? PodcastFeed(parsing: Array(text.utf8))
        var tokenizer = XMLTokenizer(Array(text.utf8))
        var events = 0
        while tokenizer.next() != nil { events += 1 }
        #expect(events < 10)
    }
}
