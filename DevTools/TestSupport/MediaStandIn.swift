import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// An in-process media server on 127.0.0.1 (ephemeral port) for the player's tests: an Icecast-style
/// live stream paced in real time with ICY metadata, playlists, feeds, files with HTTP Range, and
/// failure modes (status codes, wrong content type, a stream that stops, a slow first byte).
/// Responses are written as raw bytes, so the legacy `ICY 200 OK` status line is possible.
public final class MediaStandIn: Sendable {
    /// A live stream: `audio` looped, sent at `bytesPerSecond` after an initial burst.
    public struct LiveStream: Sendable {
        public var audio: [UInt8]
        public var contentType = "audio/mpeg"
        public var bytesPerSecond = 16_000
        /// Sent at once on connect, as Icecast does to fill the client's buffer.
        public var burstBytes = 16_000
        /// Audio bytes between metadata blocks, when the client asked with `Icy-MetaData: 1`.
        public var metaInterval = 8_192
        /// Titles in turn; the title changes every `blocksPerTitle` metadata blocks. Sent when it changes.
        public var titles: [String] = []
        public var blocksPerTitle = 4
        /// Answer with `ICY 200 OK` instead of `HTTP/1.0 200 OK` (old Shoutcast servers).
        public var legacyStatusLine = false
        public var name = "Stand-in Radio"

        public init(audio: [UInt8]) {
            self.audio = audio
        }
    }

    public enum Content: Sendable {
        case live(LiveStream)
        /// A file; honours `Range: bytes=a-b` with 206 (and 416 beyond the end).
        case file([UInt8], contentType: String)
        case status(Int)
        case redirect(to: String)
    }

    /// A route: what a path serves, and how it misbehaves.
    public struct Route: Sendable {
        public var content: Content
        /// Wait before the status line (a slow start).
        public var firstByteDelay: Duration?
        /// Close the connection after this many body bytes (a dropped stream / truncated download).
        public var stopAfterBytes: Int?

        public init(_ content: Content, firstByteDelay: Duration? = nil, stopAfterBytes: Int? = nil) {
            self.content = content
            self.firstByteDelay = firstByteDelay
            self.stopAfterBytes = stopAfterBytes
        }
    }

    public struct RecordedRequest: Sendable {
        public var path: String
        public var headers: [(name: String, value: String)]

        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    struct State {
        var routes: [String: Route] = [:]
        var requests: [RecordedRequest] = []
        var openConnections = 0
    }

    let state = Mutex(State())
    private let listener: StandInListener
    public var port: Int { listener.port }

    /// `port` 0 picks an ephemeral port; a fixed one lets a restarted server come back at the same URL.
    public static func start(port: Int = 0) async throws -> MediaStandIn {
        let served = Mutex<MediaStandIn?>(nil)
        let listener = try await StandInListener.bind(port: port) { channel in
            try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(HTTPRequestDecoder()))
            return try NIOAsyncChannel<HTTPServerRequestPart, ByteBuffer>(wrappingChannelSynchronously: channel)
        } serve: { connection in
            guard let standIn = served.withLock({ $0 }) else {
                try? await connection.executeThenClose { _, _ in }  // not started yet: turned away
                return
            }
            await MediaConnection(standIn: standIn, connection: connection).serve()
        }
        let standIn = MediaStandIn(listener: listener)
        served.withLock { $0 = standIn }
        return standIn
    }

    private init(listener: StandInListener) {
        self.listener = listener
    }

    /// Closes the listening socket and every connection (a stream in progress sees its connection drop).
    public func stop() async {
        await listener.stop()
    }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    public func route(_ path: String, _ route: Route) {
        state.withLock { $0.routes[path] = route }
    }

    public func route(_ path: String, _ content: Content) {
        route(path, Route(content))
    }

    public var requests: [RecordedRequest] { state.withLock { $0.requests } }
    public var openConnections: Int { state.withLock { $0.openConnections } }

    /// A PLS body listing `urls`.
    public static func pls(_ urls: [String], title: String = "Stand-in") -> [UInt8] {
        var text = "[playlist]\nnumberofentries=\(urls.count)\n"
        for (index, url) in urls.enumerated() {
            text += "File\(index + 1)=\(url)\nTitle\(index + 1)=\(title) (#\(index + 1))\nLength\(index + 1)=-1\n"
        }
        return Array((text + "Version=2\n").utf8)
    }

    /// An RSS 2.0 feed with iTunes tags; episodes are (title, enclosure URL, length, pubDate).
    public static func rss(title: String, episodes: [(title: String, url: String, length: Int, pubDate: String)]) -> [UInt8] {
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>\(title)</title>

            """
        for (index, episode) in episodes.enumerated() {
            xml += """
                <item><title><![CDATA[\(episode.title)]]></title><pubDate>\(episode.pubDate)</pubDate>
                <enclosure url="\(episode.url)" length="\(episode.length)" type="audio/mpeg"/>
                <itunes:episode>\(index + 1)</itunes:episode><itunes:duration>0:02</itunes:duration></item>

                """
        }
        return Array((xml + "</channel></rss>\n").utf8)
    }
}
