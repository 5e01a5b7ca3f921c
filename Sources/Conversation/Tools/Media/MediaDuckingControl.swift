import Synchronization

/// The model's `duck_audio(level)` request, handed from the tool (any task) to the conversation runner's
/// loop, which applies it to the ducking of the current conversation; the level is forgotten when the
/// conversation ends. Share one instance between `MediaTools.make(player:ducking:)` and `ConversationRunner`.
public final class MediaDuckingControl: Sendable {
    private let pending = Mutex<Float?>(nil)

    public init() {}

    /// Asks for media at `level` (0...1, a fraction of the user volume) while ducked in this conversation.
    /// The newest request wins.
    public func request(level: Float) {
        let clamped = level.isNaN ? 0 : min(max(level, 0), 1)
        pending.withLock { $0 = clamped }
    }

    /// The level asked for since the last call, if any (the runner's loop polls this).
    public func take() -> Float? {
        pending.withLock { value in
            defer { value = nil }
            return value
        }
    }

    /// Forgets an unapplied request (the conversation ended).
    public func clear() { pending.withLock { $0 = nil } }
}
