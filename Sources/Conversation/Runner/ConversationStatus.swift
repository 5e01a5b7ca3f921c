import Basics
import Realtime

/// A snapshot for the control socket's `status` JSON (the root adds the media player's part).
public struct ConversationStatus: Sendable, Equatable {
    public var state: ConversationState
    public var realtimeConnected: Bool
    public var jarvisSessionID: String?
    public var media: MediaGainStatus
    public var toolsRunning: Int
    /// Server frames that were not valid events, and events of unknown types, since start.
    public var malformedEvents: Int
    public var unknownEvents: Int
    /// `ConversationEngine.bargeIns`, `.echoTurnsIgnored` and `.pausesResumed`: since start.
    public var bargeIns: Int
    public var echoTurnsIgnored: Int
    public var pausesResumed: Int
    /// The microphone privacy mute.
    public var microphoneMuted = false
    /// Timers and alarms ringing now.
    public var ringing: [KitchenTimer] = []
    /// Estimated Realtime API spending since start and by local day.
    public var spending: SpendingLedger

    public init(
        state: ConversationState = .idle, realtimeConnected: Bool = false, jarvisSessionID: String? = nil,
        media: MediaGainStatus = MediaGainStatus(ducked: false, volume: 1), toolsRunning: Int = 0,
        malformedEvents: Int = 0, unknownEvents: Int = 0, bargeIns: Int = 0, echoTurnsIgnored: Int = 0,
        pausesResumed: Int = 0, spending: SpendingLedger = SpendingLedger()
    ) {
        self.state = state
        self.realtimeConnected = realtimeConnected
        self.jarvisSessionID = jarvisSessionID
        self.media = media
        self.toolsRunning = toolsRunning
        self.malformedEvents = malformedEvents
        self.unknownEvents = unknownEvents
        self.bargeIns = bargeIns
        self.echoTurnsIgnored = echoTurnsIgnored
        self.pausesResumed = pausesResumed
        self.spending = spending
    }

    /// The contract keys: `state`, `realtime_connected`, `jarvis_session_id`.
    public var jsonFields: [String: JSONValue] {
        [
            "state": .string(state.rawValue),
            "realtime_connected": .bool(realtimeConnected),
            "jarvis_session_id": jarvisSessionID.map(JSONValue.string) ?? .null
        ]
    }
}
