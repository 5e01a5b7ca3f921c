import Glibc
import HTTP
import Logging
import Media
import ServiceLifecycle
import TestProcess
import TestSupport
import Testing

@Suite struct MediaPlayerLifecycleTests {
    @Test func gracefulShutdownStopsTheStreamAndSavesThePosition() async throws {
        let server = try await MediaStandIn.start()
        defer { Task { await server.stop() } }
        server.route("/long.mp3", .file(try MediaFixtures.sineMP3(seconds: 6, frequency: 440), contentType: "audio/mpeg"))
        let client = try HTTPClient()
        defer { client.shutdown() }
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let fixture = PlayerFixture(stateDir: dir.path, client: client, server: server, output: PacedOutput(speed: 2))
        let group = ServiceGroup(services: [fixture.player], gracefulShutdownSignals: [], logger: Logger(label: "test"))
        let running = Task { try await group.run() }
        let item = try await fixture.player.play(url: server.url("/long.mp3"), title: "Long", kind: .podcast)
        #expect(await eventually { await fixture.player.nowPlaying().positionSeconds >= 2 })
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(await fixture.player.nowPlaying().state == .stopped)
        #expect(await fixture.player.recentHistory(limit: 5).map(\.item) == [item])
        #expect(dir.read("media-state.json")?.contains("long.mp3") == true)
        var info = stat()
        #expect(stat(dir.path + "/media-state.json", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)  // feed URLs may carry tokens
    }

    @Test func aPausedFileResumesWithRangeWhereItPaused() async throws {
        let server = try await MediaStandIn.start()
        defer { Task { await server.stop() } }
        let mp3 = try MediaFixtures.sineMP3(seconds: 4, frequency: 440)
        server.route("/song.mp3", .file(mp3, contentType: "audio/mpeg"))
        let client = try HTTPClient()
        defer { client.shutdown() }
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let fixture = PlayerFixture(stateDir: dir.path, client: client, server: server, output: PacedOutput(speed: 2))
        let item = try await fixture.player.play(url: server.url("/song.mp3"), title: "Song", kind: nil)
        #expect(item.kind == .music)
        #expect(await eventually { await fixture.player.nowPlaying().positionSeconds >= 1.5 })
        try await fixture.player.pause()
        let paused = await fixture.player.nowPlaying()
        #expect(paused.state == .paused)
        try await Task.sleep(for: .milliseconds(100))
        #expect(await fixture.player.nowPlaying().positionSeconds == paused.positionSeconds, "a paused position stands still")
        #expect(try await fixture.player.resume() == item)
        #expect(await fixture.player.nowPlaying().positionSeconds >= paused.positionSeconds)
        #expect(await eventually { server.requests.count == 2 })
        let range = server.requests.last?.header("Range")
        let offset = Double(range?.dropFirst("bytes=".count).dropLast() ?? "") ?? -1
        let expected = Double(mp3.count) / 4 * paused.positionSeconds
        #expect(abs(offset - expected) < 8_000, "Range \(range ?? "none"), expected about bytes=\(Int(expected))-")
        #expect(await eventually { fixture.events.all.contains(.itemEnded(item, next: nil)) })
        let heard = try #require(await fixture.player.recentHistory(limit: 1).first?.playedSeconds)
        #expect(abs(heard - 4) < 0.6, "heard \(heard) s of a 4 s song")
        #expect(
            fixture.events.all == [
                .playbackChanged(.playing), .playbackChanged(.paused), .playbackChanged(.playing),
                .itemEnded(item, next: nil), .playbackChanged(.stopped)
            ])
    }

    @Test func historyIsBoundedOnDiskAndInMemory() async throws {
        let server = try await MediaStandIn.start()
        defer { Task { await server.stop() } }
        let mp3 = try MediaFixtures.sineMP3(seconds: 0.5, frequency: 440)
        for name in ["a", "b", "c"] { server.route("/\(name).mp3", .file(mp3, contentType: "audio/mpeg")) }
        let client = try HTTPClient()
        defer { client.shutdown() }
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let fixture = PlayerFixture(stateDir: dir.path, client: client, server: server, output: PacedOutput(speed: 8)) { $0.historyLimit = 2 }
        for name in ["a", "b", "c"] { _ = try await fixture.player.enqueue(url: server.url("/\(name).mp3"), title: name) }
        #expect(
            await eventually { fixture.events.all.contains { if case .itemEnded(let item, next: nil) = $0 { item.title == "c" } else { false } } })
        #expect(await fixture.player.recentHistory(limit: 10).map(\.item.title) == ["c", "b"])
        let lines = (dir.read("media-history.jsonl") ?? "").split(separator: "\n")
        #expect(lines.count == 2)
        let reloaded = PlayerFixture(stateDir: dir.path, client: client, server: server) { $0.historyLimit = 2 }
        #expect(await reloaded.player.recentHistory(limit: 1).map(\.item.title) == ["c"])
    }

    @Test func anUnusableStateDirectoryKeepsEverythingInMemory() async throws {
        let client = try HTTPClient()
        defer { client.shutdown() }
        let fixture = PlayerFixture(stateDir: "/proc/jarvis-voice-no-such-dir", client: client, server: nil)
        #expect(await fixture.player.setVolume(0.5) == 0.5)
        #expect(await fixture.player.nowPlaying().volume == 0.5)
        #expect(fixture.player.currentVolume.gain == MediaVolume(level: 0.5).gain)
    }

    @Test func aRememberedPositionBeyondTheFileStartsOver() async throws {
        let server = try await MediaStandIn.start()
        defer { Task { await server.stop() } }
        server.route("/short.mp3", .file(try MediaFixtures.sineMP3(seconds: 1, frequency: 440), contentType: "audio/mpeg"))
        let client = try HTTPClient()
        defer { client.shutdown() }
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let url = server.url("/short.mp3")
        let state = #"{"positions":{"\#(url)":{"seconds":100,"bytesPerSecond":16000,"updatedAt":0}}}"#
        #expect(MediaFixtures.spawnAndWait(["sh", "-c", "printf '%s' '\(state)' > \(dir.path)/media-state.json"]) == 0)
        let fixture = PlayerFixture(stateDir: dir.path, client: client, server: server, output: PacedOutput(speed: 4))
        let item = try await fixture.player.play(url: url, title: "Short", kind: .podcast)
        // `play` answers once it is heard: the remembered position was refused (416), so from the start.
        #expect(await fixture.player.nowPlaying().positionSeconds < 2)
        #expect(await eventually { fixture.events.all.contains(.itemEnded(item, next: nil)) })
        #expect(server.requests.map { $0.header("Range") } == ["bytes=1584000-", nil])
        #expect(!fixture.events.all.contains { if case .gaveUp = $0 { true } else { false } })
    }
}
