import Basics

/// How a URL the model or the user gave is classified before it is fetched.
enum MediaRequest {
    static let playlistSuffixes = [".pls", ".m3u", ".m3u8"]
    static let feedSuffixes = [".rss", ".xml", ".atom"]
    static let fileSuffixes = [".mp3", ".ogg", ".opus", ".oga", ".m4a", ".aac", ".mp4", ".flac", ".wav"]

    static func isPlaylist(_ url: MediaURL) -> Bool {
        playlistSuffixes.contains { url.lastPathComponent.hasSuffix($0) }
    }

    static func isAudioFile(_ url: MediaURL) -> Bool {
        fileSuffixes.contains { url.lastPathComponent.hasSuffix($0) }
    }

    /// Feeds by name: ".rss"/".xml", or a path with "feed" or "rss" in it and no audio extension.
    static func looksLikeFeed(_ url: MediaURL) -> Bool {
        let name = url.lastPathComponent
        if feedSuffixes.contains(where: { name.hasSuffix($0) }) { return true }
        guard !isAudioFile(url), !isPlaylist(url) else { return false }
        let path = (url.pathAndQuery.split(separator: "?", maxSplits: 1).first.map(String.init) ?? "").lowercased()
        return path.contains("/feed") || path.contains("rss") || path.contains("podcast")
    }

    /// Playlists and extension-less streams are radio; feeds are podcasts; audio files music.
    static func guessKind(_ url: MediaURL) -> MediaKind {
        if isPlaylist(url) { return .radio }
        if looksLikeFeed(url) { return .podcast }
        return isAudioFile(url) ? .music : .radio
    }
}

extension MediaPlayer {
    /// A URL to play: playlists resolve to their stream, feeds to their latest episode.
    func resolve(url text: String, title: String?, kind: MediaKind?) async throws(MediaCommandError) -> PlaybackTarget {
        let url = try parse(text)
        if MediaRequest.isPlaylist(url) {
            let stream: MediaStreamLocation
            do {
                stream = try await fetcher.resolveStream(url)
            } catch {
                throw MediaCommandError("I couldn't open that playlist: \(error.description).")
            }
            return PlaybackTarget(item: MediaItem(url: text, title: title, kind: kind ?? .radio), stream: stream.url, isHLS: stream.isHLS)
        }
        if MediaRequest.looksLikeFeed(url) {
            var target = try await resolvePodcast(feed: url, episode: 1)
            if let title { target.item.title = title }
            return target
        }
        return PlaybackTarget(item: MediaItem(url: text, title: title, kind: kind ?? MediaRequest.guessKind(url)), stream: url)
    }

    /// `episode` 1 is the latest.
    func resolvePodcast(feed url: MediaURL, episode: Int) async throws(MediaCommandError) -> PlaybackTarget {
        let feed: PodcastFeed
        do {
            feed = try await fetcher.podcastFeed(url)
        } catch {
            throw MediaCommandError("I couldn't load that podcast feed: \(error.description).")
        }
        let name = feed.title.isEmpty ? "That podcast" : "The podcast \(feed.title)"
        guard !feed.episodes.isEmpty else { throw MediaCommandError("\(name) has no episodes I can play.") }
        guard episode >= 1, let chosen = feed.episode(fromLatest: episode - 1) else {
            throw MediaCommandError("\(name) has only \(feed.episodes.count) episodes, so there is no episode \(episode) from the latest.")
        }
        let item = MediaItem(
            url: chosen.enclosure.absoluteString, title: chosen.title, kind: .podcast,
            show: feed.title.isEmpty ? nil : feed.title)
        return PlaybackTarget(
            item: item, stream: chosen.enclosure, durationSeconds: chosen.durationSeconds.map(Double.init),
            fileLength: chosen.enclosureLength)
    }

    func resolveStation(named name: String) async throws(MediaCommandError) -> PlaybackTarget {
        let catalog = await stationCatalog()
        guard let station = catalog.station(named: name) ?? SomaFMCatalog.builtIn.station(named: name) else {
            throw MediaCommandError("I couldn't find a SomaFM station called \"\(name.trimmed())\".")
        }
        let stream: MediaStreamLocation
        do {
            stream = try await fetcher.resolveStream(station.playlist)
        } catch {
            throw MediaCommandError("I couldn't reach SomaFM's \(station.title) right now: \(error.description).")
        }
        let item = MediaItem(url: station.playlist.absoluteString, title: station.title, kind: .radio, show: "SomaFM \(station.title)")
        return PlaybackTarget(item: item, stream: stream.url, isHLS: stream.isHLS)
    }

    /// The built-in list, refreshed from `stationCatalogURL` on first use and then at most once per
    /// `catalogRefreshInterval` (an hour after a failure); failures fall back to what we have.
    func stationCatalog() async -> SomaFMCatalog {
        guard configuration.refreshStationCatalog else { return catalog ?? .builtIn }
        let now = ContinuousClock.now
        if let next = catalogNextRefresh, now < next { return catalog ?? .builtIn }
        catalogNextRefresh = now + .seconds(3_600)
        do {
            let fetched = try await fetcher.somaFMCatalog(from: configuration.stationCatalogURL)
            catalog = fetched
            catalogNextRefresh = now + configuration.catalogRefreshInterval
            logger.info("station list refreshed (\(fetched.stations.count) stations)")
        } catch {
            logger.warning("using the built-in station list: \(error.description)")
        }
        return catalog ?? .builtIn
    }
}
