import AudioCore
import Codecs
import HTTP
import Media
import TestSupport
import Testing

@Suite struct MediaStandInTests {
    /// Reads a live ICY stream through libcurl until `titles` distinct titles arrived (or 5 s passed).
    private func listen(_ url: String, wantTitles: Int) async throws -> (titles: [String], format: AudioFormat?, frames: Int, headers: IcyHeaders) {
        let client = try HTTPClient()
        defer { client.shutdown() }
        let response = try await client.execute(
            HTTPRequest(
                url: url, headers: [HTTPHeader("Icy-MetaData", "1")],
                totalTimeout: .seconds(5)))
        #expect(response.status == 200)
        let headers = IcyHeaders { response.head.value(for: $0) }
        var demuxer = IcyDemuxer(metaInterval: headers.metaInterval)
        let decoder = try MP3Decoder()
        var titles: [String] = []
        var frames = 0
        for try await chunk in response.body {
            try chunk.withUnsafeBytes { raw in
                try demuxer.push(
                    raw,
                    audio: { audio in
                        try decoder.decode(audio) { frames += $0.frameCount }
                    },
                    onMetadata: { meta in
                        if let title = meta.streamTitle, titles.last != title { titles.append(title) }
                    })
            }
            if titles.count >= wantTitles { break }
        }
        response.cancel()
        return (titles, decoder.format, frames, headers)
    }

    @Test func icyTitlesArriveWithDecodableAudio() async throws {
        let server = try await MediaStandIn.start()
        defer { Task { await server.stop() } }
        var stream = MediaStandIn.LiveStream(audio: try MediaFixtures.sineMP3(seconds: 2, frequency: 440))
        stream.metaInterval = 2_000
        stream.bytesPerSecond = 64_000
        stream.titles = ["Artist One - First", "Artist Twö - Second"]
        stream.blocksPerTitle = 3
        server.route("/groovesalad-128-mp3", .live(stream))
        let heard = try await listen(server.url("/groovesalad-128-mp3"), wantTitles: 2)
        #expect(heard.titles.prefix(2) == ["Artist One - First", "Artist Twö - Second"])
        #expect(heard.headers.metaInterval == 2_000)
        #expect(heard.headers.name == "Stand-in Radio")
        #expect(heard.format == AudioFormat(sampleRate: 44_100, channels: 2))
        #expect(heard.frames > 10_000)
        #expect(server.requests.first?.header("Icy-MetaData") == "1")
    }

    @Test func legacyICYStatusLineIsAccepted() async throws {
        let server = try await MediaStandIn.start()
        defer { Task { await server.stop() } }
        var stream = MediaStandIn.LiveStream(audio: try MediaFixtures.sineMP3(seconds: 1, frequency: 440))
        stream.legacyStatusLine = true
        stream.metaInterval = 1_000
        stream.bytesPerSecond = 64_000
        stream.titles = ["Old Shoutcast - Title"]
        server.route("/;stream.mp3", .live(stream))
        let heard = try await listen(server.url("/;stream.mp3"), wantTitles: 1)
        #expect(heard.titles == ["Old Shoutcast - Title"])
        #expect(heard.frames > 0)
    }

    @Test func rangeRequestsResumeAFile() async throws {
        let server = try await MediaStandIn.start()
        defer { Task { await server.stop() } }
        let mp3 = try MediaFixtures.sineMP3(seconds: 1, frequency: 440)
        server.route("/ep1.mp3", MediaStandIn.Route(.file(mp3, contentType: "audio/mpeg"), stopAfterBytes: 5_000))
        let client = try HTTPClient()
        defer { client.shutdown() }
        // The first download stops after 5000 bytes; resume from there with Range.
        let first = try await client.execute(HTTPRequest(url: server.url("/ep1.mp3")))
        var got: [UInt8] = []
        do {
            for try await chunk in first.body { got += chunk }
        } catch let error as HTTPError {
            #expect(error.kind == .connectionLost || error.kind == .other, "\(error)")
        }
        #expect(got.count == 5_000)
        server.route("/ep1.mp3", .file(mp3, contentType: "audio/mpeg"))
        let rest = try await client.execute(HTTPRequest(url: server.url("/ep1.mp3"), headers: [HTTPHeader("Range", "bytes=\(got.count)-")]))
        #expect(rest.status == 206)
        #expect(rest.head.value(for: "content-range") == "bytes 5000-\(mp3.count - 1)/\(mp3.count)")
        got += try await rest.collect(upTo: 1 << 20)
        #expect(got == mp3)
        let beyond = try await client.execute(HTTPRequest(url: server.url("/ep1.mp3"), headers: [HTTPHeader("Range", "bytes=\(mp3.count)-")]))
        #expect(beyond.status == 416)
    }

    @Test func resolvesPlaylistsAndFeedsThroughTheFetcher() async throws {
        let server = try await MediaStandIn.start()
        defer { Task { await server.stop() } }
        let mp3 = try MediaFixtures.sineMP3(seconds: 1, frequency: 440)
        server.route("/live", .live(MediaStandIn.LiveStream(audio: mp3)))
        server.route("/station.pls", .file(MediaStandIn.pls(["ftp://nope/x", server.url("/live")]), contentType: "audio/x-scpls"))
        server.route("/outer.m3u", .file(Array("#EXTM3U\n/station.pls\n".utf8), contentType: "audio/x-mpegurl"))
        server.route(
            "/feed.xml",
            .file(
                MediaStandIn.rss(
                    title: "Stand-in Show",
                    episodes: [
                        ("Old", "/ep1.mp3", mp3.count, "Mon, 01 Jan 2024 00:00:00 GMT"),
                        ("New", "/ep2.mp3", mp3.count, "Mon, 08 Jan 2024 00:00:00 GMT")
                    ]), contentType: "application/rss+xml"))
        server.route("/moved.pls", .redirect(to: "/station.pls"))
        let client = try HTTPClient()
        defer { client.shutdown() }
        let fetcher = MediaFetcher(client: client)
        #expect(try await fetcher.resolveStream(MediaURL(parsing: server.url("/station.pls"))).url.absoluteString == server.url("/live"))
        #expect(try await fetcher.resolveStream(MediaURL(parsing: server.url("/outer.m3u"))).url.absoluteString == server.url("/live"))
        #expect(try await fetcher.resolveStream(MediaURL(parsing: server.url("/moved.pls"))).url.absoluteString == server.url("/live"))
        let feed = try await fetcher.podcastFeed(MediaURL(parsing: server.url("/feed.xml")))
        #expect(feed.title == "Stand-in Show")
        #expect(feed.latest?.title == "New")
        #expect(feed.latest?.enclosure.absoluteString == server.url("/ep2.mp3"))
    }

    @Test func failuresAreNamed() async throws {
        let server = try await MediaStandIn.start()
        defer { Task { await server.stop() } }
        server.route("/html.pls", .file(Array("<html>oops</html>".utf8), contentType: "text/html"))
        server.route("/big.xml", .file([UInt8](repeating: 0x20, count: 100_000), contentType: "application/rss+xml"))
        server.route("/down.pls", .status(503))
        let client = try HTTPClient()
        defer { client.shutdown() }
        var limits = MediaLimits()
        limits.maxFeedBytes = 10_000
        let fetcher = MediaFetcher(client: client, limits: limits)
        await #expect(throws: MediaFetchError.status(404, url: try MediaURL(parsing: server.url("/missing.pls")))) {
            _ = try await fetcher.resolveStream(MediaURL(parsing: server.url("/missing.pls")))
        }
        await #expect(throws: MediaFetchError.status(503, url: try MediaURL(parsing: server.url("/down.pls")))) {
            _ = try await fetcher.resolveStream(MediaURL(parsing: server.url("/down.pls")))
        }
        do {
            _ = try await fetcher.resolveStream(MediaURL(parsing: server.url("/html.pls")))
            Issue.record("an HTML page is not a playlist")
        } catch let error as MediaFetchError {
            #expect(error.description.contains("no http(s) stream entry"), "\(error)")
        }
        await #expect(throws: MediaFetchError.tooLarge(limit: 10_000, url: try MediaURL(parsing: server.url("/big.xml")))) {
            _ = try await fetcher.podcastFeed(MediaURL(parsing: server.url("/big.xml")))
        }
    }
}
