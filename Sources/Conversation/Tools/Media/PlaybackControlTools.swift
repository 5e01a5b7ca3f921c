import Media
import Realtime

/// `pause_playback()`.
struct PausePlaybackTool: MediaTool {
    let player: any MediaControlling

    static let definition = ToolDefinition(
        name: "pause_playback", description: "Pauses the media playing on this speaker.", parameters: [], answersInstantly: true)

    func answer(_ arguments: ToolArguments) async throws(MediaCommandError) -> String {
        try await player.pause()
        return MediaToolJSON.status("paused", item: nil)
    }
}

/// `resume_playback()`.
struct ResumePlaybackTool: MediaTool {
    let player: any MediaControlling

    static let definition = ToolDefinition(name: "resume_playback", description: "Resumes paused media.", parameters: [], answersInstantly: true)

    func answer(_ arguments: ToolArguments) async throws(MediaCommandError) -> String {
        MediaToolJSON.status("playing", item: try await player.resume())
    }
}

/// `stop_playback()`: stops and clears what is playing (the queue is kept).
struct StopPlaybackTool: MediaTool {
    let player: any MediaControlling

    static let definition = ToolDefinition(
        name: "stop_playback", description: "Stops the media playing on this speaker and clears what is playing.", parameters: [],
        answersInstantly: true)

    func answer(_ arguments: ToolArguments) async throws(MediaCommandError) -> String {
        let stopped = await player.stop()
        return MediaToolJSON.status("stopped", item: nil, extra: ["stopped": stopped.map(MediaToolJSON.item) ?? .null])
    }
}

/// `skip_track()`: ends the current item and starts the next queued one.
struct SkipTrackTool: MediaTool {
    let player: any MediaControlling

    static let definition = ToolDefinition(
        name: "skip_track", description: "Skips to the next item in the queue (stops when the queue is empty).", parameters: [],
        answersInstantly: true)

    func answer(_ arguments: ToolArguments) async throws(MediaCommandError) -> String {
        guard let next = await player.skip() else { return MediaToolJSON.status("stopped", item: nil, extra: ["queue": "empty"]) }
        return MediaToolJSON.status("playing", item: next)
    }
}
