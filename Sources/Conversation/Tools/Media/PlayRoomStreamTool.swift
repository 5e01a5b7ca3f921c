import Basics
import Realtime

/// `play_room_stream(stream)`: every speaker in this box's multi-room group plays the server's stream.
public struct PlayRoomStreamTool: FixedDefinitionTool {
    let rooms: any RoomStreamSwitching

    public init(rooms: any RoomStreamSwitching) {
        self.rooms = rooms
    }

    public static let definition = ToolDefinition(
        name: "play_room_stream",
        description:
            "Makes all speakers in this room group (multi-room audio) play one of the home server's streams, by its name.",
        parameters: [.string("stream", "The stream's name on the home server, for example \"radio\" or \"jazz\".")],
        answersInstantly: true)

    public func run(_ arguments: ToolArguments) async -> ToolOutput {
        guard let name = arguments.string("stream")?.trimmed(), !name.isEmpty else {
            return .failure("play_room_stream needs a stream")
        }
        if let problem = await rooms.playRoomStream(name) { return .failure(problem) }
        return .success(JSONValue.object(["status": "playing", "stream": .string(name)]).jsonText)
    }
}
