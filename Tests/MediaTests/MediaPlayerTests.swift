import HTTP
import Media
import TestProcess
import TestSupport
import Testing

@Suite struct MediaPlayerTests {
    private static func liveStream(bytesPerSecond: Int = 16_000, titles: [String] = []) throws -> MediaStandIn.LiveStream {
        var stream = MediaStandIn.LiveStream(audio: try MediaFixtures.sineMP3(seconds: 1, frequency: 440))
        stream.bytesPerSecond = bytesPerSecond
        stream.burstBytes = 8_000
        stream.metaInterval = 4_000
        stream.titles = titles
        stream.blocksPerTitle = 2
        return stream
    }

    @Test func icyTitlesShowUpAndADroppedLiveStreamReconnects() async throws {
        let server = try await MediaStandIn.start()
        defer { Task { await server.stop() } }
        server.route(
            "/live",
            MediaStandIn.Route(
                .live(try Self.liveStream(bytesPerSecond: 64_000, titles: ["Artist - Song", "Other - Tune"])),
                stopAfterBytes: 20_000))
        let client = try HTTPClient()
        defer { client.shutdown() }
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let fixture = PlayerFixture(stateDir: dir.path, client: client, server: server, output: PacedOutput(speed: 4))
        let item = try await fixture.player.play(url: server.url("/live"), title: "Stand-in radio", kind: nil)
        #expect(item.kind == .radio)
        #expect(await eventually { fixture.events.all.contains(.streamTitleChanged("Artist - Song")) })
        #expect(await fixture.player.nowPlaying().streamTitle != nil)
        #expect(await eventually { server.requests.count >= 3 }, "the dropped stream was reconnected")
        let before = fixture.output.snapshot.acceptedSeconds
        #expect(await eventually { fixture.output.snapshot.acceptedSeconds > before + 0.5 }, "audio keeps flowing after reconnects")
        let now = await fixture.player.nowPlaying()
        #expect(now.state == .playing)
        #expect(now.item == item)
        #expect(now.displayTitle == now.streamTitle)
        #expect(now.positionSeconds > 0)
        #expect(fixture.output.snapshot.nonZeroSamples > 0)
        #expect(await fixture.player.stop() == item)
        let events = fixture.events.all
        #expect(events.first == .playbackChanged(.playing))
        #expect(events.last == .playbackChanged(.stopped))
        #expect(!events.contains { if case .gaveUp = $0 { true } else { false } })
        #expect(!events.contains { if case .itemEnded = $0 { true } else { false } })
        let history = await fixture.player.recentHistory(limit: 10)
        #expect(history.count == 1)
        #expect(history.first?.item == item)
        #expect(history.first?.streamTitles.contains("Artist - Song") == true)
        #expect((history.first?.playedSeconds ?? 0) > 0)
        let onDisk = dir.read("media-history.jsonl") ?? ""
        #expect(onDisk.contains("Artist - Song"), "\(onDisk)")
        #expect(onDisk.contains("\"playedSeconds\""))
    }

    @Test func aStoppedPodcastResumesAtItsPositionInANewPlayer() async throws {
        let server = try await MediaStandIn.start()
        defer { Task { await server.stop() } }
        let mp3 = try MediaFixtures.sineMP3(seconds: 8, frequency: 330)
        server.route("/ep1.mp3", .file(mp3, contentType: "audio/mpeg"))
        let feed = """
            <?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>
            <title>Test Show</title>
            <item><title>Episode One</title><pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate>
            <enclosure url="\(server.url("/ep1.mp3"))" length="\(mp3.count)" type="audio/mpeg"/><itunes:duration>0:08</itunes:duration></item>
            </channel></rss>
            """
        server.route("/feed.rss", .file(Array(feed.utf8), contentType: "application/rss+xml"))
        let client = try HTTPClient()
        defer { client.shutdown() }
        let dir = TemporaryDirectory()
        defer { dir.remove() }

        let first = PlayerFixture(stateDir: dir.path, client: client, server: server, output: PacedOutput(speed: 2))
        let item = try await first.player.playPodcast(feedURL: server.url("/feed.rss"), episode: nil)
        #expect(item == MediaItem(url: server.url("/ep1.mp3"), title: "Episode One", kind: .podcast, show: "Test Show"))
        #expect(await eventually { await first.player.nowPlaying().positionSeconds >= 3 })
        let durationSeconds = await first.player.nowPlaying().durationSeconds
        #expect(durationSeconds == 8)
        #expect(await first.player.stop() == item)
        let stoppedAt = try #require(await first.player.recentHistory(limit: 1).first?.playedSeconds)
        #expect(stoppedAt >= 3 && stoppedAt < 6, "\(stoppedAt)")
        #expect(dir.read("media-state.json")?.contains("ep1.mp3") == true)

        let second = PlayerFixture(stateDir: dir.path, client: client, server: server, output: PacedOutput(speed: 2))
        let requestsBefore = server.requests.count
        #expect(try await second.player.playPodcast(feedURL: server.url("/feed.rss"), episode: 1) == item)
        let resumeAt = stoppedAt - 1  // the configured rewind
        let started = await second.player.nowPlaying().positionSeconds
        // `play` answers once it is heard, so a little of it has played already (at double speed here).
        #expect(started >= resumeAt - 0.6 && started < resumeAt + 1.2, "starts at \(started), expected about \(resumeAt)")
        #expect(await eventually { server.requests.count > requestsBefore + 1 })
        let range = server.requests.dropFirst(requestsBefore).compactMap { $0.header("Range") }.first
        let offset = Int(range?.dropFirst("bytes=".count).dropLast() ?? "") ?? -1
        let expected = Double(mp3.count) / 8 * resumeAt
        #expect(abs(Double(offset) - expected) < 8_000, "Range \(range ?? "none"), expected about bytes=\(Int(expected))-")
        #expect(await eventually { second.events.all.contains(.itemEnded(item, next: nil)) })
        let heard = try #require(await second.player.recentHistory(limit: 1).first?.playedSeconds)
        #expect(heard > 8 - resumeAt - 1.5 && heard < 8 - resumeAt + 1.5, "heard \(heard) s of the rest")
        #expect(dir.read("media-state.json")?.contains("ep1.mp3") == false, "a finished episode's position is forgotten")
        #expect(second.events.all.last == .playbackChanged(.stopped))
    }

    @Test func volumeIsQuantizedAndPersisted() async throws {
        let client = try HTTPClient()
        defer { client.shutdown() }
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let first = PlayerFixture(stateDir: dir.path, client: client, server: nil) { $0.defaultVolume = 0.7 }
        #expect(first.player.currentVolume.level == 0.7)
        #expect(await first.player.setVolume(0.52) == 0.5)
        #expect(first.events.all == [.volumeChanged(level: 0.5, gain: MediaVolume(level: 0.5).gain)])
        #expect(abs(MediaVolume(level: 0.5).gain - 0.1) < 1e-6)
        let second = PlayerFixture(stateDir: dir.path, client: client, server: nil)
        #expect(await second.player.nowPlaying().volume == 0.5)
        #expect(await second.player.setVolume(0) == 0)
        #expect(second.events.all == [.volumeChanged(level: 0, gain: 0)])
        #expect(await second.player.setVolume(7) == 1)
        #expect(MediaVolume(level: 0.01).decibels == -38)
        #expect(MediaVolume(level: 0.76).decibels == -10)
        #expect(MediaVolume(level: 1).gain == 1)
        // What `ctl volume` answers is the applied level as the owner would type it: 0.3, not 0.30000000000000004.
        let printed = (0...100).map { "\(MediaVolume(level: Double($0) / 100).level)" }
        #expect(printed.allSatisfy { $0.count <= 4 }, "\(printed.filter { $0.count > 4 })")
    }

    @Test func queuedItemsPlayInTurn() async throws {
        let server = try await MediaStandIn.start()
        defer { Task { await server.stop() } }
        server.route("/a.mp3", .file(try MediaFixtures.sineMP3(seconds: 1, frequency: 440), contentType: "audio/mpeg"))
        server.route("/b.mp3", .file(try MediaFixtures.sineMP3(seconds: 1, frequency: 660), contentType: "audio/mpeg"))
        let client = try HTTPClient()
        defer { client.shutdown() }
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let fixture = PlayerFixture(stateDir: dir.path, client: client, server: server, output: PacedOutput(speed: 4))
        #expect(try await fixture.player.enqueue(url: server.url("/a.mp3"), title: "A") == 0, "starts at once")
        #expect(try await fixture.player.enqueue(url: server.url("/b.mp3"), title: "B") == 1)
        let a = MediaItem(url: server.url("/a.mp3"), title: "A", kind: .music)
        let b = MediaItem(url: server.url("/b.mp3"), title: "B", kind: .music)
        #expect(await fixture.player.nowPlaying().queue == [b])
        #expect(await eventually { fixture.events.all.contains(.itemEnded(a, next: b)) })
        #expect(await eventually { fixture.events.all.contains(.itemEnded(b, next: nil)) })
        #expect(fixture.events.all == [.playbackChanged(.playing), .itemEnded(a, next: b), .itemEnded(b, next: nil), .playbackChanged(.stopped)])
        let history = await fixture.player.recentHistory(limit: 5)
        #expect(history.map(\.item) == [b, a])
        for entry in history { #expect(abs(entry.playedSeconds - 1) < 0.2, "\(entry.playedSeconds)") }
        #expect(fixture.output.snapshot.flushes == 0, "a natural end plays out")
        #expect(await fixture.player.nowPlaying().state == .stopped)
    }

    @Test func skipStopPauseResumeAndClearQueue() async throws {
        let server = try await MediaStandIn.start()
        defer { Task { await server.stop() } }
        for path in ["/one", "/two", "/three"] { server.route(path, .live(try Self.liveStream(bytesPerSecond: 32_000))) }
        let client = try HTTPClient()
        defer { client.shutdown() }
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let fixture = PlayerFixture(stateDir: dir.path, client: client, server: server, output: PacedOutput(speed: 2))
        let player = fixture.player
        let one = try await player.play(url: server.url("/one"), title: "One", kind: .ambient)
        #expect(one.kind == .ambient)
        #expect(try await player.enqueue(url: server.url("/two"), title: "Two") == 1)
        #expect(try await player.enqueue(url: server.url("/three"), title: "Three") == 2)
        #expect(await eventually { fixture.output.snapshot.acceptedSeconds > 0.2 })

        let two = await player.skip()
        #expect(two?.url == server.url("/two"))
        #expect(fixture.output.snapshot.flushes == 1)
        #expect(await player.clearQueue() == 1)
        #expect(await player.nowPlaying().queue.isEmpty)

        let accepted = fixture.output.snapshot.acceptedSeconds
        #expect(await eventually { fixture.output.snapshot.acceptedSeconds > accepted + 0.2 })
        try await player.pause()
        #expect(await player.nowPlaying().state == .paused)
        await #expect(throws: MediaCommandError("Nothing is playing right now.")) { try await player.pause() }
        let requests = server.requests.filter { $0.path == "/two" }.count
        #expect(try await player.resume() == two)
        #expect(await eventually { server.requests.filter { $0.path == "/two" }.count == requests + 1 }, "a live stream reconnects on resume")
        #expect(await eventually { await player.nowPlaying().state == .playing }, "playing again once its audio is heard")

        #expect(await player.stop() == two)
        #expect(await player.stop() == nil)
        await #expect(throws: MediaCommandError("Nothing is paused right now.")) { _ = try await player.resume() }
        #expect(await player.skip() == nil)
        #expect(fixture.events.all == [.playbackChanged(.playing), .playbackChanged(.paused), .playbackChanged(.playing), .playbackChanged(.stopped)])
        #expect(await player.recentHistory(limit: 5).map(\.item.title) == ["Two", "One"])
    }

    /// Until its audio is heard an item is `buffering`, never `playing`; one that stays silent past the
    /// start limit is stopped and `play` says why.
    @Test func statusIsBufferingUntilAudioAndASilentStartGivesUp() async throws {
        let server = try await MediaStandIn.start()
        defer { Task { await server.stop() } }
        server.route("/slow", MediaStandIn.Route(.live(try Self.liveStream()), firstByteDelay: .milliseconds(700)))
        server.route("/never", MediaStandIn.Route(.live(try Self.liveStream()), firstByteDelay: .seconds(60)))
        let client = try HTTPClient()
        defer { client.shutdown() }
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        // The limit leaves the slow start room on a loaded machine.
        let fixture = PlayerFixture(stateDir: dir.path, client: client, server: server) { $0.startLimit = .seconds(5) }
        let player = fixture.player

        let slow = Task { try await player.play(url: server.url("/slow"), title: "Slow", kind: nil) }
        #expect(await eventually { await player.nowPlaying().item?.title == "Slow" })
        #expect(await player.nowPlaying().state == .buffering)
        #expect(try await slow.value.title == "Slow")
        #expect(await player.nowPlaying().state == .playing)
        #expect(fixture.output.snapshot.acceptedSeconds > 0)

        do {
            _ = try await player.play(url: server.url("/never"), title: "Never", kind: nil)
            Issue.record("a silent item answered as playing")
        } catch {
            // Under load the stream's own timeout may have been told too: "(… no data received …)".
            #expect(error.message.hasPrefix("I couldn't play Never: nothing could be heard within 5 s"), "\(error.message)")
        }
        #expect(await player.nowPlaying().state == .stopped)
        #expect(fixture.events.all.contains { if case .gaveUp(let item, _) = $0 { item.title == "Never" } else { false } })
    }

    @Test func failuresAreSaidNotSilent() async throws {
        let server = try await MediaStandIn.start()
        defer { Task { await server.stop() } }
        server.route("/slow-missing", MediaStandIn.Route(.status(404), firstByteDelay: .milliseconds(300)))
        server.route("/page", .file(Array("<html><body>hello</body></html>".utf8), contentType: "text/html"))
        server.route("/next", .live(try Self.liveStream()))
        let client = try HTTPClient()
        defer { client.shutdown() }
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let fixture = PlayerFixture(stateDir: dir.path, client: client, server: server)
        let player = fixture.player

        // `play` answers once the item is heard or has failed: this one fails, and says why.
        let missing = Task { try await player.play(url: server.url("/slow-missing"), title: "Gone", kind: nil) }
        #expect(await eventually { await player.nowPlaying().item?.title == "Gone" })
        #expect(try await player.enqueue(url: server.url("/next"), title: "Next") == 1)
        do {
            _ = try await missing.value
            Issue.record("a missing item answered as playing")
        } catch let error as MediaCommandError {
            #expect(error.message.hasPrefix("I couldn't play Gone: ") && error.message.contains("404"), "\(error.message)")
        } catch {
            Issue.record("\(error)")
        }
        #expect(
            fixture.events.all.contains { if case .gaveUp(let item, let why) = $0 { item.title == "Gone" && why.contains("404") } else { false } })
        #expect(fixture.events.all.last == .playbackChanged(.stopped))
        let now = await player.nowPlaying()
        #expect(now.state == .stopped)
        #expect(now.queue.map(\.title) == ["Next"], "the queue is not started after a failure")
        #expect(!server.requests.contains { $0.path == "/next" })

        do {
            _ = try await player.play(url: server.url("/page"), title: nil, kind: nil)
            Issue.record("a web page answered as playing")
        } catch {
            #expect(error.message.contains("did not return audio"), "\(error.message)")
        }

        let enclosure = server.url("/episode.mp3")
        server.route("/episode.mp3", .file(try MediaFixtures.sineMP3(seconds: 1, frequency: 550), contentType: "audio/mpeg"))
        server.route(
            "/show/feed.rss",
            .file(
                MediaStandIn.rss(
                    title: "Feed Show",
                    episodes: [
                        (title: "Old", url: server.url("/old.mp3"), length: 1_000, pubDate: "Mon, 02 Nov 2026 10:00:00 GMT"),
                        (title: "Newest", url: enclosure, length: 16_000, pubDate: "Mon, 09 Nov 2026 10:00:00 GMT")
                    ]), contentType: "application/rss+xml"))
        let episode = try await player.play(url: server.url("/show/feed.rss"), title: nil, kind: nil)
        #expect(episode == MediaItem(url: enclosure, title: "Newest", kind: .podcast, show: "Feed Show"), "a feed URL plays its latest episode")
        #expect(await player.stop() == episode)

        do {
            _ = try await player.play(url: "file:///etc/passwd", title: nil, kind: nil)
            Issue.record("file: URL accepted")
        } catch {
            #expect(error.message.contains("only play http or https"), "\(error.message)")
        }
        await #expect(throws: MediaCommandError.self) { _ = try await player.enqueue(url: "ftp://example.com/a.mp3", title: nil) }
        do {
            _ = try await player.play(url: server.url("/nothing.pls"), title: nil, kind: nil)
            Issue.record("missing playlist accepted")
        } catch {
            #expect(error.message.contains("couldn't open that playlist") && error.message.contains("404"), "\(error.message)")
        }
        do {
            _ = try await player.playPodcast(feedURL: server.url("/page"), episode: 3)
            Issue.record("HTML accepted as a feed")
        } catch {
            #expect(error.message.contains("podcast feed"), "\(error.message)")
        }
    }

    @Test func stationsByNameFromTheServedCatalog() async throws {
        let server = try await MediaStandIn.start()
        defer { Task { await server.stop() } }
        server.route("/live", .live(try Self.liveStream(titles: ["Soma - Test"])))
        server.route("/teststation.pls", .file(MediaStandIn.pls([server.url("/live")]), contentType: "audio/x-scpls"))
        let channels = """
            {"channels": [{"id": "teststation", "title": "Test Station", "genre": "ambient",
              "playlists": [{"url": "\(server.url("/teststation.pls"))", "format": "mp3", "quality": "highest"}]}]}
            """
        server.route("/channels.json", .file(Array(channels.utf8), contentType: "application/json"))
        let client = try HTTPClient()
        defer { client.shutdown() }
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let fixture = PlayerFixture(stateDir: dir.path, client: client, server: server, output: PacedOutput(speed: 4))
        let item = try await fixture.player.playStation(named: "  test STATION ")
        #expect(item.title == "Test Station")
        #expect(item.kind == .radio)
        #expect(await eventually { await fixture.player.nowPlaying().streamTitle == "Soma - Test" })
        #expect(fixture.output.snapshot.nonZeroSamples > 0)
        do {
            _ = try await fixture.player.playStation(named: "No Such Thing")
            Issue.record("unknown station accepted")
        } catch {
            #expect(error.message == "I couldn't find a SomaFM station called \"No Such Thing\".")
        }
        #expect(server.requests.filter { $0.path == "/channels.json" }.count == 1, "the catalog is fetched once")
        #expect(await fixture.player.nowPlaying().item == item, "a failed request keeps the current item")
        _ = await fixture.player.stop()
    }
}
