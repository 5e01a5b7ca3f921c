/// Switches this box's multi-room group (Snapcast) to another of the server's streams. The composition
/// root passes the room player's; Conversation stays below the layer that plays rooms.
public protocol RoomStreamSwitching: Sendable {
    /// Returns nil when the group plays `name` now, else why not in words the model can repeat
    /// (the streams there are, or that the server cannot be reached).
    func playRoomStream(_ name: String) async -> String?
}
