/// The `type` field of a Snapcast binary-protocol message (`common/message/message.hpp`).
/// A 0.26 server never sends `streamTags` or `error`; `error` is what 0.32+ servers send on refusal.
public enum SnapcastMessageType: UInt16, Sendable, Hashable, CaseIterable {
    case codecHeader = 1
    case wireChunk = 2
    case serverSettings = 3
    case time = 4
    case hello = 5
    case streamTags = 6
    case clientInfo = 7
    case error = 8
}
