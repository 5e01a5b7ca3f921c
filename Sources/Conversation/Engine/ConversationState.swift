import Basics

/// The engine's states; `rawValue` is the name used in the `status` JSON.
public enum ConversationState: String, Sendable, Equatable, CaseIterable {
    case idle
    case connecting
    case listening
    case userSpeaking = "user_speaking"
    case processing
    case fillerSpeaking = "filler_speaking"
    case waitingForJarvis = "waiting_for_jarvis"
    case aiSpeaking = "ai_speaking"
    case error

    /// A conversation (and its Realtime session) exists.
    public var isInConversation: Bool { self != .idle && self != .error }

    var isSpeaking: Bool { self == .fillerSpeaking || self == .aiSpeaking }

    /// The LED shows this pattern while the engine is in the state.
    public var ledPattern: LEDPattern {
        switch self {
        case .idle: .off
        case .connecting: .connecting
        case .listening, .userSpeaking: .listening
        case .processing, .waitingForJarvis: .thinking
        case .fillerSpeaking, .aiSpeaking: .speaking
        case .error: .error
        }
    }
}
