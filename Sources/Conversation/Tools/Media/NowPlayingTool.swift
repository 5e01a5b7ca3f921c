import Basics
import Media
import Realtime

/// `get_now_playing()`: what plays, the queue, and the last few things played (so Jarvis can avoid repeats).
struct GetNowPlayingTool: MediaTool {
    let player: any MediaControlling
    /// History entries included. Default 5.
    let historyLimit: Int

    init(player: any MediaControlling, historyLimit: Int = 5) {
        self.player = player
        self.historyLimit = max(0, historyLimit)
    }

    static let definition = ToolDefinition(
        name: "get_now_playing",
        description:
            "Returns what is playing on this speaker (state, title, the stream's current song, show or station, position, volume), the queue, and the most recently played items.",
        parameters: [],
        prompt: """
            get_now_playing answers "what's playing?": its stream_title is the song on air, and its recent list \
            shows what was played lately, to avoid repeats.
            """,
        answersInstantly: true)

    func answer(_ arguments: ToolArguments) async throws(MediaCommandError) -> String {
        let now = await player.nowPlaying()
        let history = historyLimit > 0 ? await player.recentHistory(limit: historyLimit) : []
        return Self.json(now, history: Array(history.prefix(historyLimit)))
    }

    static func json(_ now: MediaNowPlaying, history: [MediaHistoryEntry]) -> String {
        var fields: [String: JSONValue] = [
            "state": .string(now.state.rawValue),
            "title": now.item?.title.map(JSONValue.string) ?? .null,
            "stream_title": now.streamTitle.map(JSONValue.string) ?? .null,
            "show": now.item?.show.map(JSONValue.string) ?? .null,
            "type": now.item.map { .string($0.kind.rawValue) } ?? .null,
            "url": now.item.map { .string($0.url) } ?? .null,
            "volume": MediaToolJSON.level(now.volume),
            "queue": .array(now.queue.map(MediaToolJSON.item)),
            "recent": .array(history.map(entry))
        ]
        if now.item != nil {
            fields["position_seconds"] = MediaToolJSON.seconds(now.positionSeconds)
            fields["duration_seconds"] = now.durationSeconds.map(MediaToolJSON.seconds) ?? .null
        }
        return JSONValue.object(fields).jsonText
    }

    private static func entry(_ entry: MediaHistoryEntry) -> JSONValue {
        guard case .object(var fields) = MediaToolJSON.item(entry.item) else { return .null }
        fields["started_at"] = .number(Double(entry.startedAt))
        fields["played_seconds"] = MediaToolJSON.seconds(entry.playedSeconds)
        if !entry.streamTitles.isEmpty { fields["stream_titles"] = .array(entry.streamTitles.suffix(3).map(JSONValue.string)) }
        return .object(fields)
    }
}
