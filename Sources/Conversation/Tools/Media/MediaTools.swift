import Media

/// The local media tools the model calls directly (Jarvis curates what to play; this device performs).
/// Each is one internal `MediaTool` type; the service reaches them only through `make`.
///
/// Composition root:
/// ```swift
/// let ducking = MediaDuckingControl()
/// var tools = ToolRegistry([AskJarvisTool(jarvis: jarvis)])
/// for tool in MediaTools.make(player: player, ducking: ducking) { tools.register(tool) }
/// // engine configuration: `use(tools)`; runner: ConversationRunner(..., tools: tools, ducking: ducking)
/// ```
public enum MediaTools {
    /// The seed's ten tools in its order, then `play_station` and `play_podcast`.
    public static func make(player: any MediaControlling, ducking: MediaDuckingControl) -> [any Tool] {
        [
            PlayAudioTool(player: player), PausePlaybackTool(player: player), ResumePlaybackTool(player: player),
            StopPlaybackTool(player: player), SkipTrackTool(player: player), GetNowPlayingTool(player: player),
            SetVolumeTool(player: player), DuckAudioTool(ducking: ducking), EnqueueTool(player: player),
            ClearQueueTool(player: player), PlayStationTool(player: player), PlayPodcastTool(player: player)
        ]
    }
}
