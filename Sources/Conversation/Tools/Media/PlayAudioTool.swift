import Basics
import Media
import Realtime

/// `play_audio(url, title, type)`: plays what Jarvis picked, now (replacing the current item; the queue is kept).
struct PlayAudioTool: MediaTool {
    let player: any MediaControlling

    static let definition = ToolDefinition(
        name: "play_audio",
        description:
            "Plays a media URL on this speaker now (music, a podcast episode, a radio stream or ambient sound), replacing what is playing. Use exactly the URL, title and type Jarvis gave; never invent a URL.",
        parameters: [
            .string("url", "The http(s) URL of the stream, file, playlist (PLS/M3U) or podcast feed."),
            .string("title", "What it is, as it should be announced (e.g. \"Darknet Diaries ep 147\")."),
            .string("type", "What kind of audio it is.", allowed: MediaKind.allCases.map(\.rawValue), required: false)
        ],
        prompt: """
            # Media
            Jarvis curates; this device performs. To choose something to play ("play something good", "surprise \
            me", "a podcast I haven't heard"), call ask_jarvis with the request. When Jarvis answers with a pick, often \
            as JSON {"type", "title", "url", "reason"}, call play_audio with exactly that url, title and type (never invent a URL \
            or change one), then introduce the pick in one short sentence, using the reason. If Jarvis names \
            several, play the first and enqueue the rest. A SomaFM station by name goes to play_station, a podcast \
            feed URL to play_podcast. Simple controls ("pause", "louder", "what's playing?") go straight to the \
            quick local tools below.
            System messages about media (an item ended, the next item, a stream that stopped) are cues from this \
            device: do what they ask in one short sentence and say nothing else.
            """,
        answersInstantly: true)

    func answer(_ arguments: ToolArguments) async throws(MediaCommandError) -> String {
        let url = try MediaToolJSON.url(arguments, "url", tool: "play_audio")
        let kind = arguments.string("type").flatMap(MediaKind.init(rawValue:))
        let item = try await player.play(url: url, title: arguments.string("title"), kind: kind)
        return MediaToolJSON.status("playing", item: item)
    }
}

/// `play_station(name)`: a SomaFM station by name or id.
struct PlayStationTool: MediaTool {
    let player: any MediaControlling

    static let definition = ToolDefinition(
        name: "play_station",
        description: "Plays a SomaFM internet radio station by its name or id (for example \"Groove Salad\", \"drone zone\", \"secretagent\").",
        parameters: [.string("name", "The station's name or id.")], answersInstantly: true)

    func answer(_ arguments: ToolArguments) async throws(MediaCommandError) -> String {
        guard let name = arguments.string("name")?.trimmed() else { throw MediaCommandError("play_station needs a name") }
        return MediaToolJSON.status("playing", item: try await player.playStation(named: name))
    }
}

/// `play_podcast(feed_url, episode?)`: an episode of a podcast RSS feed, resuming where it was left.
struct PlayPodcastTool: MediaTool {
    let player: any MediaControlling

    static let definition = ToolDefinition(
        name: "play_podcast",
        description:
            "Plays an episode of a podcast from its RSS feed URL: the latest by default, or the n-th most recent. Resumes where it was left off.",
        parameters: [
            .string("feed_url", "The http(s) URL of the podcast's RSS feed."),
            .integer(
                "episode", "1 is the latest episode, 2 the one before, and so on. Omit for the latest.", minimum: 1, maximum: 1000, required: false)
        ], answersInstantly: true)

    func answer(_ arguments: ToolArguments) async throws(MediaCommandError) -> String {
        let feed = try MediaToolJSON.url(arguments, "feed_url", tool: "play_podcast")
        return MediaToolJSON.status("playing", item: try await player.playPodcast(feedURL: feed, episode: arguments.integer("episode")))
    }
}
