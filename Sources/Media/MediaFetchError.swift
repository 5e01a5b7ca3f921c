import HTTP

/// Why a playlist, feed or stream could not be fetched; messages name the URL without credentials or query.
public enum MediaFetchError: Error, CustomStringConvertible, Sendable, Equatable {
    case url(MediaURLError)
    case transport(HTTPError, url: MediaURL)
    case status(Int, url: MediaURL)
    case tooLarge(limit: Int, url: MediaURL)
    /// The body is not what was asked for (HTML error page instead of audio, ...).
    case unexpectedContent(String, url: MediaURL)
    case playlist(PlaylistError, url: MediaURL)
    case feed(PodcastFeedError, url: MediaURL)
    /// A playlist pointed to another playlist too many times.
    case playlistLoop(url: MediaURL)

    public var description: String {
        switch self {
        case .url(let error): error.description
        case .transport(let error, let url): "cannot fetch \(url): \(error.plainDescription)"
        case .status(let code, let url): "\(url) answered HTTP \(code)"
        case .tooLarge(let limit, let url): "\(url) is larger than \(limit) bytes"
        case .unexpectedContent(let what, let url): "\(url) did not return audio: \(what)"
        case .playlist(let error, let url): "playlist \(url): \(error)"
        case .feed(let error, let url): "podcast feed \(url): \(error)"
        case .playlistLoop(let url): "playlist \(url) nests too deeply"
        }
    }
}
