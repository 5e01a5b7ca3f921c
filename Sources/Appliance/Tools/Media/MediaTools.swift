import Media

/// The local media tools the model calls directly (Jarvis curates what to play; this device performs).
///
/// Composition root:
/// ```swift
/// let ducking = MediaDuckingControl()
/// var tools = ToolRegistry([AskJarvisTool(jarvis: jarvis)])
/// for tool in MediaTools.make(player: player, ducking: ducking) { tools.register(tool) }
/// // engine configuration: tools: tools.functionTools; runner: ConversationRunner(..., ducking: ducking)
/// ```
public enum MediaTools {
    /// The seed's ten tools in its order, then `play_station` and `play_podcast`.
    public static func make(player: any MediaControlling, ducking: MediaDuckingControl) -> [any Tool] {
        [
            PlayAudioTool(player: player), PausePlaybackTool(player: player), ResumePlaybackTool(player: player),
            StopPlaybackTool(player: player), SkipTrackTool(player: player), GetNowPlayingTool(player: player),
            SetVolumeTool(player: player), DuckAudioTool(ducking: ducking), EnqueueTool(player: player),
            ClearQueueTool(player: player), PlayStationTool(player: player), PlayPodcastTool(player: player),
        ]
    }

    /// The names, in registration order.
    public static let names = [
        "play_audio", "pause_playback", "resume_playback", "stop_playback", "skip_track", "get_now_playing",
        "set_volume", "duck_audio", "enqueue", "clear_queue", "play_station", "play_podcast",
    ]
}
