import Conversation
import Rooms

/// The room player as the `play_room_stream` tool sees it (Conversation does not know Rooms).
struct SnapcastRoomStreams: RoomStreamSwitching {
    let player: SnapcastPlayer

    func playRoomStream(_ name: String) async -> String? {
        do throws(SnapcastRoomError) {
            try await player.switchStream(to: name)
            return nil
        } catch {
            return "\(error)"
        }
    }
}
