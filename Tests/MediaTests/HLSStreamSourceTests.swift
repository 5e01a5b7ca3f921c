import AudioCore
import Basics
import HTTP
import Media
import TestSupport
import Testing

@Suite struct HLSStreamSourceTests {
    /// `seconds` of a 440 Hz AAC tone in MPEG-TS, cut at packet boundaries into `count` segments.
    static func segments(seconds: Double = 3, count: Int = 3) throws -> [[UInt8]] {
        let ts = try MediaFixtures.ffmpegSine("ts", encoder: ["-c:a", "aac", "-b:a", "96k", "-f", "mpegts"], seconds: seconds)
        let packets = ts.count / 188
        return (0..<count).map { index in
            Array(ts[(index * packets / count * 188)..<((index + 1) * packets / count * 188)])
        }
    }

    func run(_ server: MediaStandIn, _ path: String) async throws -> (EventLog, SleepLog, CollectingSink) {
        let client = try HTTPClient()
        defer { client.shutdown() }
        var settings = MediaStreamSettings()
        settings.prebuffer = .milliseconds(200)
        settings.maxConsecutiveFailures = 2
        settings.backPressurePoll = .milliseconds(1)
        var source = HLSStreamSource(url: try MediaURL(parsing: server.url(path)), fetcher: MediaFetcher(client: client), settings: settings)
        let sleeps = SleepLog()
        source.sleep = { sleeps.record($0) }
        source.jitterUnit = { 0.5 }
        let events = EventLog()
        let sink = CollectingSink()
        await source.run(into: sink) { events.append($0) }
        return (events, sleeps, sink)
    }

    @Test func anOnDemandPlaylistPlaysEverySegmentThroughOneDecoderThenEnds() async throws {
        let server = try await MediaStandIn.start()
        defer { Task { await server.stop() } }
        var playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        for (index, segment) in try Self.segments().enumerated() {
            server.route("/vod/s\(index).ts", .file(segment, contentType: "video/mp2t"))
            playlist += "#EXTINF:1.0,\ns\(index).ts\n"
        }
        server.route("/vod/index.m3u8", .file(Array((playlist + "#EXT-X-ENDLIST\n").utf8), contentType: "application/vnd.apple.mpegurl"))
        let (events, sleeps, sink) = try await run(server, "/vod/index.m3u8")
        #expect(events.all.first == .connected(codec: .aac, name: nil, resumedAt: nil), "\(events.all)")
        #expect(events.all.last == .ended)
        #expect(sink.formats == [AudioFormat(sampleRate: 44_100, channels: 2)])
        #expect(sink.samples.count / 2 >= 3 * 44_100 - 2_048, "all three segments, seamlessly: \(sink.samples.count / 2) frames")
        #expect(sleeps.all.isEmpty)
    }

    @Test func encryptedAndMissingPlaylistsFailByName() async throws {
        let server = try await MediaStandIn.start()
        defer { Task { await server.stop() } }
        let encrypted = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\"\n#EXTINF:1,\ns.ts\n#EXT-X-ENDLIST\n"
        server.route("/enc.m3u8", .file(Array(encrypted.utf8), contentType: "application/vnd.apple.mpegurl"))
        let (locked, _, _) = try await run(server, "/enc.m3u8")
        #expect(locked.all.last == .failed("\(server.url("/enc.m3u8")) is encrypted HLS, which this release does not play"))
        let (missing, sleeps, _) = try await run(server, "/gone.m3u8")
        guard case .failed(let reason)? = missing.all.last else {
            Issue.record("\(missing.all)")
            return
        }
        #expect(reason.contains("404") && sleeps.all.isEmpty, "\(reason)")
    }
}
