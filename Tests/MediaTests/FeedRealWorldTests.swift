import Testing

@testable import Media

/// What real feeds do that the RSS 2.0 spec does not show: declared encodings, default namespaces,
/// HTML entities, Atom, loose dates, spaces in URLs.
@Suite struct FeedRealWorldTests {
    static func rss(_ items: String, declaration: String = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>", rssAttributes: String = "") -> String {
        "\(declaration)<rss version=\"2.0\"\(rssAttributes)><channel><title>Show</title>\(items)</channel></rss>"
    }

    @Test func defaultAndPrefixedRSSNamespacesGiveEpisodes() throws {
        let defaultNamespace = Self.rss(
            "<item><title>A</title><enclosure url=\"https://h/a.mp3\"/><pubDate>Tue, 02 Jul 2024 07:00:00 GMT</pubDate></item>",
            rssAttributes: " xmlns=\"http://backend.userland.com/rss2\"")
        let feed = try PodcastFeed(parsing: Array(defaultNamespace.utf8))
        #expect(feed.title == "Show")
        #expect(feed.episodes.map(\.title) == ["A"])
        #expect(feed.episodes.first?.published == 1_719_903_600)

        let prefixed = """
            <r:rss xmlns:r="http://backend.userland.com/rss2" xmlns:i="http://www.itunes.com/DTDs/Podcast-1.0.dtd"><r:channel>
            <r:item><r:title>B</r:title><i:title>Bee</i:title><r:enclosure url="https://h/b.mp3"/><i:duration>90</i:duration></r:item>
            </r:channel></r:rss>
            """
        let second = try PodcastFeed(parsing: Array(prefixed.utf8))
        #expect(second.episodes.map(\.title) == ["Bee"])
        #expect(second.episodes.first?.durationSeconds == 90)
    }

    @Test func foreignElementsNamedLikeRSSOnesAreIgnored() throws {
        let text = Self.rss(
            "<item xmlns:x=\"urn:x\"><x:title>Wrong</x:title><title>Right</title><x:enclosure url=\"https://h/x.mp3\"/><enclosure url=\"https://h/r.mp3\"/></item>"
        )
        let feed = try PodcastFeed(parsing: Array(text.utf8))
        #expect(feed.episodes.map(\.title) == ["Right"])
        #expect(feed.episodes.first?.enclosure.absoluteString == "https://h/r.mp3")
    }

    @Test(arguments: [
        ("windows-1252", [0x93, 0x41, 0x94, 0x20, 0x96, 0x20, 0x80] as [UInt8], "\u{201C}A\u{201D} \u{2013} €"),
        ("ISO-8859-1", [0x43, 0x61, 0x66, 0xE9], "Café"),
        ("iso-8859-2", [0x50, 0xF8, 0xED, 0x6C, 0x69, 0xB9], "Příliš"),
        ("windows-1251", [0xCF, 0xF0, 0xE8, 0xE2, 0xE5, 0xF2], "Привет"),
        ("ISO-8859-7", [0xE3, 0xE5, 0xE9, 0xDC], "γειά"),
        ("ISO-8859-15", [0xA4, 0x35], "€5"),
        ("koi8-r", [0xF0, 0xD2, 0xC9, 0xD7, 0xC5, 0xD4], "Привет")
    ])
    func declaredSingleByteEncodingsAreDecoded(_ encoding: String, _ bytes: [UInt8], _ expected: String) throws {
        let head = Array("<?xml version=\"1.0\" encoding=\"\(encoding)\"?><rss><channel><title>".utf8)
        let tail = Array("</title><item><title>x</title><enclosure url=\"http://h/a.mp3\"/></item></channel></rss>".utf8)
        let feed = try PodcastFeed(parsing: head + bytes + tail)
        #expect(feed.title == expected)
    }

    @Test(arguments: [
        ("GB2312", [0xD6, 0xD0, 0xCE, 0xC4] as [UInt8], "中文"),
        ("EUC-KR", [0xC7, 0xD1, 0xB1, 0xB9], "한국"),
        ("Shift_JIS", [0x93, 0xFA, 0x96, 0x7B], "日本"),
        ("Big5", [0xA4, 0xA4, 0xA4, 0xE5], "中文"),
        ("GBK", [0xD6, 0xD0, 0xFF, 0xCE, 0xC4], "中\u{FFFD}文")
    ])
    func declaredMultiByteEncodingsAreDecodedByIconv(_ encoding: String, _ bytes: [UInt8], _ expected: String) throws {
        let head = Array("<?xml version=\"1.0\" encoding=\"\(encoding)\"?><rss><channel><title>".utf8)
        let tail = Array("</title><item><title>x</title><enclosure url=\"http://h/a.mp3\"/></item></channel></rss>".utf8)
        #expect(try PodcastFeed(parsing: head + bytes + tail).title == expected)
    }

    @Test func utf8UnderALatin1DeclarationStaysUTF8() throws {
        let text = Self.rss(
            "<item><title>Café</title><enclosure url=\"http://h/a.mp3\"/></item>",
            declaration: "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>")
        #expect(try PodcastFeed(parsing: Array(text.utf8)).episodes.first?.title == "Café")
    }

    @Test(arguments: [true, false])
    func utf16WithByteOrderMarkIsDecoded(_ bigEndian: Bool) throws {
        let text = Self.rss(
            "<item><title>Ünïcödé ✓</title><enclosure url=\"http://h/a.mp3\"/></item>",
            declaration: "<?xml version=\"1.0\" encoding=\"UTF-16\"?>")
        var bytes: [UInt8] = bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
        for unit in text.utf16 {
            bytes += bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        }
        let feed = try PodcastFeed(parsing: bytes)
        #expect(feed.episodes.first?.title == "Ünïcödé ✓")
    }

    @Test func htmlNamedAndNumericEntitiesAreDecoded() throws {
        let text = Self.rss(
            "<item><title>Caf&eacute; &ndash; &ldquo;Live&rdquo; &hellip; &copy;&nbsp;&#150;&#x2019;&apos;&bogus;</title><enclosure url=\"http://h/a.mp3\"/></item>"
        )
        #expect(try PodcastFeed(parsing: Array(text.utf8)).episodes.first?.title == "Café – “Live” … ©\u{A0}–’'&bogus;")
    }

    @Test func atomFeedsWithEnclosureLinksGiveEpisodes() throws {
        let atom = """
            <?xml version="1.0" encoding="utf-8"?>
            <feed xmlns="http://www.w3.org/2005/Atom" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
              <title>Atom Show</title>
              <link rel="self" href="https://example.org/feed.atom"/>
              <entry>
                <title>Older</title><id>urn:1</id>
                <link rel="alternate" href="https://example.org/1"/>
                <link rel="enclosure" type="audio/mpeg" length="1234" href="https://example.org/1.mp3"/>
                <updated>2024-07-01T10:00:00Z</updated>
              </entry>
              <entry>
                <title>Newer &amp; better</title><id>urn:2</id>
                <link href="https://example.org/2.mp3" rel="enclosure"/>
                <published>2024-07-02T10:00:00+02:00</published><updated>2024-07-09T00:00:00Z</updated>
                <itunes:duration>10:00</itunes:duration>
              </entry>
              <entry><title>No audio</title><link rel="alternate" href="https://example.org/3"/></entry>
            </feed>
            """
        let feed = try PodcastFeed(parsing: Array(atom.utf8))
        #expect(feed.title == "Atom Show")
        #expect(feed.episodes.map(\.title) == ["Older", "Newer & better"])
        #expect(feed.episodes[0].enclosureLength == 1_234)
        #expect(feed.episodes[0].published == 1_719_828_000)
        #expect(feed.episodes[1].published == 1_719_907_200)
        #expect(feed.episodes[1].durationSeconds == 600)
        #expect(feed.episodes[1].guid == "urn:2")
        #expect(feed.latest?.enclosure.absoluteString == "https://example.org/2.mp3")
    }

    @Test func atomNamesWithoutTheirNamespaceAndEnclosureLinksInRSSItems() throws {
        let bare = """
            <feed xmlns:atom="http://www.w3.org/2005/Atom"><title>F</title>
            <entry><title>E</title><link rel="enclosure" type="audio/mpeg">http://h/e.mp3</link><updated>2012-03-26T23:25:19Z</updated></entry>
            </feed>
            """
        let feed = try PodcastFeed(parsing: Array(bare.utf8))
        #expect(feed.title == "F")
        #expect(feed.episodes.first?.enclosure.absoluteString == "http://h/e.mp3")
        #expect(feed.episodes.first?.published == 1_332_804_319)
        let mixed = Self.rss("<item><title>I</title><link>http://h/page</link><link rel=\"enclosure\" href=\"http://h/i.mp3\"/></item>")
        #expect(try PodcastFeed(parsing: Array(mixed.utf8)).episodes.first?.enclosure.absoluteString == "http://h/i.mp3")
    }

    @Test func enclosureURLsWithSpacesArePercentEncoded() throws {
        let text = Self.rss("<item><title>A</title><enclosure url=\" https://h/My Show/Episode 1.mp3 \"/></item>")
        #expect(try PodcastFeed(parsing: Array(text.utf8)).episodes.first?.enclosure.absoluteString == "https://h/My%20Show/Episode%201.mp3")
    }

    @Test func dcDateIsUsedWithoutAPubDate() throws {
        let text = Self.rss(
            "<item xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><title>A</title><enclosure url=\"http://h/a.mp3\"/><dc:date>2024-07-16</dc:date></item>"
        )
        #expect(try PodcastFeed(parsing: Array(text.utf8)).episodes.first?.published == 1_721_088_000)
    }

    @Test(
        arguments: [
            ("Tue, 16 Jul 2024 09:30:00 +02:00", 1_721_115_000),
            ("Tue, 16 Jul 2024 20:30:00 +13:00", 1_721_115_000),
            ("Tue, 16 Jul 2024 07:30:00 GMT+0000", 1_721_115_000),
            ("Tue,16 Jul 2024 07:30:00 -0000", 1_721_115_000),
            ("16 Jul 2024 07:30 UT", 1_721_115_000),
            ("Jul 16 2024 07:30:00 GMT", 1_721_115_000),
            ("Tue, 16 Jul 2024 09:30:00 CEST", 1_721_122_200),
            ("Tuesday, 16 July 2024", 1_721_088_000),
            ("2024-07-16T09:30:00+02:00", 1_721_115_000),
            ("2024-07-16T07:30:00.250Z", 1_721_115_000),
            ("2024-07-16 07:30:00", 1_721_115_000),
            ("2024-07-16", 1_721_088_000),
            ("20240716T073000Z", 1_721_115_000)
        ] as [(String, Int64)])
    func feedDatesInTheirCommonForms(_ text: String, _ seconds: Int64) {
        #expect(FeedDate.parse(text) == seconds)
    }

    @Test(arguments: [
        "", "soon", "32 Jan 2024 00:00 GMT", "29 Feb 2023 00:00 GMT", "1 Jan 2024 24:00 GMT", "2024-13-01", "2024-02-30", "2024-07-16T07:30:00+99:00"
    ])
    func impossibleDatesAreUnreadable(_ text: String) {
        #expect(FeedDate.parse(text) == nil)
    }
}
