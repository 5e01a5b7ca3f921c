import Testing

@testable import Media

@Suite struct PodcastFeedTests {
    static let feed = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE rss [ <!ENTITY unused "x"> ]>
        <!-- a comment with <item> inside -->
        <rss version="2.0" xmlns:it="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:content="http://purl.org/rss/1.0/modules/content/">
          <channel>
            <title>Darknet Diaries &amp; Friends</title>
            <image><title>Not the channel title</title><url>https://x/i.png</url></image>
            <item>
              <title><![CDATA[Ep 146: <Old> & Gold]]></title>
              <pubDate>Tue, 02 Jul 2024 07:00:00 GMT</pubDate>
              <enclosure url="https://cdn.example/146.mp3" length="4000000" type="audio/mpeg"/>
              <it:duration>59:59</it:duration>
              <it:episode>146</it:episode>
            </item>
            <item>
              <title>Ep 147 &#8211; Newest &#x2014; one</title>
              <it:title>The Newest</it:title>
              <pubDate>Tue, 16 Jul 2024 09:30:00 +0200</pubDate>
              <enclosure type='audio/mpeg' url='https://cdn.example/147.mp3?src=rss&amp;x=1' length='123'></enclosure>
              <it:duration>1:02:03</it:duration>
              <it:episode>147</it:episode>
              <content:encoded><![CDATA[<p>Show notes with <b>markup</b></p>]]></content:encoded>
              <guid isPermaLink="false">abc-147</guid>
            </item>
            <item>
              <title>Trailer without audio</title>
            </item>
            <item>
              <title>Relative enclosure, no date</title>
              <enclosure url="media/bonus.mp3" type="audio/mpeg"/>
              <it:duration>3600</it:duration>
            </item>
          </channel>
        </rss>
        """

    @Test func parsesChannelItemsEnclosuresAndItunesTags() throws {
        let feed = try PodcastFeed(parsing: Array(Self.feed.utf8), base: try MediaURL(parsing: "https://feeds.example/show/rss.xml"))
        #expect(feed.title == "Darknet Diaries & Friends")
        #expect(feed.episodes.count == 3)
        let first = feed.episodes[0]
        #expect(first.title == "Ep 146: <Old> & Gold")
        #expect(first.enclosure.absoluteString == "https://cdn.example/146.mp3")
        #expect(first.enclosureLength == 4_000_000)
        #expect(first.enclosureType == "audio/mpeg")
        #expect(first.durationSeconds == 3_599)
        #expect(first.episodeNumber == 146)
        let newest = feed.episodes[1]
        #expect(newest.title == "The Newest")
        #expect(newest.enclosure.absoluteString == "https://cdn.example/147.mp3?src=rss&x=1")
        #expect(newest.durationSeconds == 3_723)
        #expect(newest.guid == "abc-147")
        #expect(newest.published == 1_721_115_000)  // 2024-07-16 07:30:00 UTC
        #expect(feed.episodes[2].enclosure.absoluteString == "https://feeds.example/show/media/bonus.mp3")
        #expect(feed.episodes[2].title == "Relative enclosure, no date")
    }

    @Test func picksLatestAndNthEpisodes() throws {
        let feed = try PodcastFeed(parsing: Array(Self.feed.utf8), base: try MediaURL(parsing: "https://feeds.example/rss"))
        #expect(feed.latest?.episodeNumber == 147)
        #expect(feed.episode(fromLatest: 1)?.episodeNumber == 146)
        #expect(feed.episode(fromLatest: 2)?.title == "Relative enclosure, no date")
        #expect(feed.episode(fromLatest: 3) == nil)
        #expect(feed.episode(number: 146)?.title == "Ep 146: <Old> & Gold")
        #expect(feed.episode(number: 9) == nil)
    }

    @Test func toleratesLatin1AndRejectsNonRSS() throws {
        let latin1 =
            Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss><channel><title>Caf".utf8) + [0xE9]
            + Array("</title><item><title>A</title><enclosure url=\"http://h/a.mp3\"/></item></channel></rss>".utf8)
        let feed = try PodcastFeed(parsing: latin1)
        #expect(feed.title == "Café")
        #expect(feed.latest?.enclosure.host == "h")
        #expect(throws: PodcastFeedError.self) { try PodcastFeed(parsing: Array("<html><body>404</body></html>".utf8)) }
        // Unsafe enclosure schemes are skipped, not played.
        let bad = try PodcastFeed(parsing: Array("<rss><channel><item><enclosure url=\"file:///etc/passwd\"/></item></channel></rss>".utf8))
        #expect(bad.episodes.isEmpty)
    }

    @Test func readsDurationsAndDates() {
        #expect(PodcastFeed.parseDuration("3600") == 3_600)
        #expect(PodcastFeed.parseDuration("05:07") == 307)
        #expect(PodcastFeed.parseDuration("1:00:00.250") == 3_600)
        #expect(PodcastFeed.parseDuration("soon") == nil)
        #expect(RFC822Date.parse("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
        #expect(RFC822Date.parse("1 Jan 70 01:00 +0100") == 0)
        #expect(RFC822Date.parse("Mon, 29 Feb 2016 12:00:00 EST") == 1_456_765_200)
        #expect(RFC822Date.parse("yesterday") == nil)
    }

    @Test func tokenizerHandlesEntitiesAttributesAndSelfClosingTags() {
        var tokenizer = XMLTokenizer(Array("<a x='1 &lt; 2' y=\"&#65;\"><b/>t&amp;u<![CDATA[&raw]]></a>".utf8))
        var events: [XMLEvent] = []
        while let event = tokenizer.next() { events.append(event) }
        #expect(
            events == [
                .start(name: "a", attributes: [XMLAttribute(name: "x", value: "1 < 2"), XMLAttribute(name: "y", value: "A")]),
                .start(name: "b", attributes: []), .end(name: "b"), .text("t&u"), .text("&raw"), .end(name: "a")
            ])
    }
}

@Suite struct SomaFMTests {
    @Test func builtInListFindsStationsByForgivingNames() {
        let catalog = SomaFMCatalog.builtIn
        #expect(catalog.stations.count >= 30)
        #expect(catalog.station(named: "Groove Salad")?.playlist.absoluteString == "https://somafm.com/groovesalad.pls")
        #expect(catalog.station(named: "soma fm drone-zone")?.id == "dronezone")
        #expect(catalog.station(named: "DEF CON")?.id == "defcon")
        #expect(catalog.station(named: "underground 80s")?.id == "u80s")
        #expect(catalog.station(named: "no such station") == nil)
        #expect(catalog.station(named: "") == nil)
        #expect(Set(catalog.stations.map(\.id)).count == catalog.stations.count)
    }

    @Test func parsesChannelsJSONPreferringMP3() throws {
        let json = """
            {"channels": [
              {"id": "groovesalad", "title": "Groove Salad", "genre": "ambient|electronica", "listeners": "1234",
               "image": "https://api.somafm.com/img/groovesalad120.png", "lastPlaying": "Tycho - Awake",
               "playlists": [
                 {"url": "https://api.somafm.com/groovesalad130.pls", "format": "aac", "quality": "highest"},
                 {"url": "https://api.somafm.com/groovesalad.pls", "format": "mp3", "quality": "high"},
                 {"url": "https://api.somafm.com/groovesalad256.pls", "format": "mp3", "quality": "highest"}]},
              {"id": "aaconly", "title": "AAC Only", "playlists": [{"url": "https://api.somafm.com/aaconly.pls", "format": "aacp", "quality": "low"}]},
              {"id": "broken", "title": "Broken", "playlists": [{"url": "ftp://nope", "format": "mp3"}]},
              {"id": "none", "title": "No playlists"}
            ]}
            """
        let catalog = try SomaFMCatalog(channelsJSON: Array(json.utf8))
        #expect(catalog.stations.map(\.id) == ["groovesalad", "aaconly"])
        #expect(catalog.stations[0].playlist.absoluteString == "https://api.somafm.com/groovesalad256.pls")
        #expect(catalog.stations[0].lastPlaying == "Tycho - Awake")
        #expect(throws: SomaFMCatalogError.self) { try SomaFMCatalog(channelsJSON: Array("{\"channels\": []}".utf8)) }
        #expect(throws: SomaFMCatalogError.self) { try SomaFMCatalog(channelsJSON: Array("<html>".utf8)) }
    }
}
