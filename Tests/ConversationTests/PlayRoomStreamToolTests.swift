import Basics
import Synchronization
import Testing

@testable import Conversation

@Suite struct PlayRoomStreamToolTests {
    /// Knows "radio" and "jazz"; remembers what it was asked for.
    final class FakeRooms: RoomStreamSwitching {
        let asked = Mutex<[String]>([])
        func playRoomStream(_ name: String) async -> String? {
            asked.withLock { $0.append(name) }
            return ["radio", "jazz"].contains(name) ? nil : "the snapserver has no stream \"\(name)\"; it has radio, jazz"
        }
    }

    @Test func switchesTheGroupOrSaysWhyNot() async {
        let rooms = FakeRooms()
        let registry = ToolRegistry([PlayRoomStreamTool(rooms: rooms)])
        #expect(registry.quietToolNames == ["play_room_stream"])
        let played = await registry.dispatch(name: "play_room_stream", arguments: #"{"stream":" jazz "}"#)
        #expect(played.succeeded)
        #expect(JSONValue.parse(played.text) == ["status": "playing", "stream": "jazz"])
        let unknown = await registry.dispatch(name: "play_room_stream", arguments: #"{"stream":"polka"}"#)
        #expect(!unknown.succeeded)
        #expect(JSONValue.parse(unknown.text)?["error"]?.stringValue?.contains("radio, jazz") == true)
        let missing = await registry.dispatch(name: "play_room_stream", arguments: "{}")
        #expect(!missing.succeeded)
        #expect(rooms.asked.withLock { $0 } == ["jazz", "polka"])
    }
}
