import HTTP

/// Fetches the small documents around a stream (playlists, podcast feeds, SomaFM's catalog) with size
/// limits, and resolves a station or playlist URL to the stream URL to play.
public struct MediaFetcher: Sendable {
    public let client: HTTPClient
    public var limits: MediaLimits
    /// Connect budget per request. Default 10 s (MPD's curl default, not libcurl's 300 s).
    public var connectTimeout: Duration = .seconds(10)
    /// Longest silence while fetching a document. Default 15 s.
    public var inactivityTimeout: Duration = .seconds(15)
    public var userAgent = "jarvis-voice/1 (+https://github.com/jarvis-voice)"

    public init(client: HTTPClient, limits: MediaLimits = MediaLimits()) {
        self.client = client
        self.limits = limits
    }

    /// GET `url` and read at most `limit` bytes of a 2xx body.
    public func fetch(_ url: MediaURL, limit: Int, headers: [HTTPHeader] = []) async throws(MediaFetchError) -> (
        head: HTTPResponseHead, body: [UInt8]
    ) {
        let request = HTTPRequest(
            url: url.absoluteString, headers: [HTTPHeader("User-Agent", userAgent)] + headers,
            connectTimeout: connectTimeout, inactivityTimeout: inactivityTimeout,
            totalTimeout: .seconds(60), maxRedirects: limits.maxRedirects)
        do {
            let response = try await client.execute(request)
            guard (200..<300).contains(response.status) else {
                response.cancel()
                throw MediaFetchError.status(response.status, url: url)
            }
            if let length = response.head.value(for: "content-length").flatMap({ Int($0) }), length > limit {
                response.cancel()
                throw MediaFetchError.tooLarge(limit: limit, url: url)
            }
            do {
                return (response.head, try await response.collect(upTo: limit))
            } catch let error as HTTPError where error.function == "collect" {
                throw MediaFetchError.tooLarge(limit: limit, url: url)
            }
        } catch let error as MediaFetchError {
            throw error
        } catch let error as HTTPError {
            throw MediaFetchError.transport(error, url: url)
        } catch {
            throw MediaFetchError.transport(HTTPError(kind: .other, host: url.host, function: "execute", detail: "\(error)"), url: url)
        }
    }

    /// The stream to play for `url`: playlists (PLS/M3U, by name or Content-Type) are fetched and their
    /// first usable entry taken, up to `depth` levels; an HLS playlist is the stream itself; anything else
    /// is returned as is (the stream source checks the audio's content type when it connects).
    public func resolveStream(_ url: MediaURL, depth: Int = 3) async throws(MediaFetchError) -> MediaStreamLocation {
        let name = url.lastPathComponent
        guard name.hasSuffix(".pls") || name.hasSuffix(".m3u") || name.hasSuffix(".m3u8") else { return MediaStreamLocation(url: url) }
        guard depth > 0 else { throw MediaFetchError.playlistLoop(url: url) }
        let (head, body) = try await fetch(url, limit: limits.maxHLSPlaylistBytes)
        guard let kind = Playlist.kind(contentType: head.value(for: "content-type"), url: url, body: body) else {
            throw MediaFetchError.unexpectedContent("expected a playlist", url: url)
        }
        if kind == .m3u, HLSPlaylist.isHLS(String(decoding: body.prefix(limits.maxHLSPlaylistBytes), as: UTF8.self)) {
            return MediaStreamLocation(url: url, isHLS: true)
        }
        guard body.count <= limits.maxPlaylistBytes else { throw MediaFetchError.tooLarge(limit: limits.maxPlaylistBytes, url: url) }
        let stream: MediaURL
        do {
            stream = try Playlist(parsing: body, kind: kind, base: url).firstStream()
        } catch {
            throw MediaFetchError.playlist(error, url: url)
        }
        return try await resolveStream(stream, depth: depth - 1)
    }

    /// The feed at `url`, parsed on the global executor (`@concurrent`): a feed at the size limit costs
    /// well under a second of CPU and never runs on the player's actor.
    @concurrent
    public func podcastFeed(_ url: MediaURL) async throws(MediaFetchError) -> PodcastFeed {
        let (_, body) = try await fetch(url, limit: limits.maxFeedBytes)
        do {
            return try PodcastFeed(parsing: body, base: url)
        } catch {
            throw MediaFetchError.feed(error, url: url)
        }
    }

    /// SomaFM's current channel list; callers fall back to `SomaFMCatalog.builtIn` on error.
    public func somaFMCatalog(from text: String = SomaFMCatalog.channelsURL) async throws(MediaFetchError) -> SomaFMCatalog {
        let url: MediaURL
        do { url = try MediaURL(parsing: text) } catch { throw MediaFetchError.url(error) }
        let (_, body) = try await fetch(url, limit: limits.maxCatalogBytes)
        do {
            return try SomaFMCatalog(channelsJSON: body)
        } catch {
            throw MediaFetchError.unexpectedContent(error.description, url: url)
        }
    }
}
