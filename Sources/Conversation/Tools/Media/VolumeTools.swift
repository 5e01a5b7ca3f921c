import Basics
import Media
import Realtime

/// `set_volume(level)`: the user's media volume, 0.0...1.0 (persisted by the player).
struct SetVolumeTool: MediaTool {
    let player: any MediaControlling

    static let definition = ToolDefinition(
        name: "set_volume",
        description: "Sets the media volume of this speaker. For \"louder\" or \"quieter\", call get_now_playing first and step by about 0.1.",
        parameters: [.number("level", "The volume from 0.0 (silent) to 1.0 (full).", minimum: 0, maximum: 1)], answersInstantly: true)

    func answer(_ arguments: ToolArguments) async throws(MediaCommandError) -> String {
        guard let level = arguments.number("level") else { throw MediaCommandError("set_volume needs a level") }
        return JSONValue.object(["volume": MediaToolJSON.level(await player.setVolume(level))]).jsonText
    }
}

/// `duck_audio(level)`: how low media goes while the assistant talks, for the rest of this conversation
/// (a fraction of the user volume; back to the configured depth when the conversation ends).
struct DuckAudioTool: MediaTool {
    let ducking: MediaDuckingControl

    static let definition = ToolDefinition(
        name: "duck_audio",
        description:
            "Sets how loud media stays while you and the user talk, for the rest of this conversation: 0.0 silences it, 1.0 keeps it at full volume. Media returns to its volume when the conversation ends.",
        parameters: [.number("level", "The media level while talking, from 0.0 to 1.0 of the current volume.", minimum: 0, maximum: 1)],
        answersInstantly: true)

    func answer(_ arguments: ToolArguments) async throws(MediaCommandError) -> String {
        guard let level = arguments.number("level") else { throw MediaCommandError("duck_audio needs a level") }
        ducking.request(level: Float(level))
        return JSONValue.object(["duck_level": MediaToolJSON.level(level)]).jsonText
    }
}
