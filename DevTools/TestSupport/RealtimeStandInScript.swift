import Basics
import Realtime

/// What the Realtime stand-in does in a conversation. All values have defaults matching a one-tool appliance.
public struct RealtimeStandInScript: Sendable {
    public enum AuthFailure: Sendable, Equatable {
        /// Upgrade, then `error` `invalid_api_key` and close 1008 (what the live API did for a random key).
        case errorEventThenClose
        /// Refuse the upgrade with HTTP 401.
        case http401
    }

    /// Refuses upgrades the way the API does when the account cannot pay or asks too often.
    public enum UpgradeRefusal: Sendable, Equatable {
        /// HTTP 429 `insufficient_quota` / `credit_balance_exhausted`, on every attempt.
        case creditExhausted
        /// HTTP 429 `rate_limit_exceeded` with `retry-after` for the first `times` attempts, then upgrades.
        case rateLimited(times: Int, retryAfterSeconds: Int)
    }

    /// The models OpenAI shut down on 2027-01-20.
    public static let shutDownOnJanuary20th2027: Set<String> = [
        "gpt-realtime", "gpt-realtime-2025-08-28", "gpt-realtime-mini", "gpt-realtime-mini-2025-12-15",
        "gpt-audio-mini", "gpt-audio-mini-2025-12-15"
    ]
    /// The Realtime models the API serves (the 2.x ones reason and speak preambles).
    public static let currentModels = ["gpt-realtime-1.5", "gpt-realtime-2", "gpt-realtime-2.1", "gpt-realtime-2.1-mini"]

    /// The key the stand-in accepts in `Authorization: Bearer`.
    public var apiKey = "sk-standin-test-key"
    public var authFailure: AuthFailure = .errorEventThenClose
    /// An upgrade asking for one of these (or for no model) gets HTTP 404 `model_not_found`, as from the API.
    public var shutDownModels: Set<String> = Self.shutDownOnJanuary20th2027
    /// nil: upgrades are not refused for the account's sake.
    public var upgradeRefusal: UpgradeRefusal?
    /// The first response of a turn calls this function (the engine's `ask_jarvis`); used when
    /// `functionCalls` is empty.
    public var functionName = "ask_jarvis"
    public var functionArguments = #"{"query":"what is on my calendar today"}"#
    public var callID = "call_standin_0001"
    /// Several calls in one turn, in order: the turn's first response calls the first; after its
    /// `function_call_output` the next response calls the second, and so on; after the last output the
    /// answer audio follows. Empty (the default): the single call above.
    public var functionCalls: [ScriptedFunctionCall] = []

    /// The calls of one turn, in order.
    public var turnCalls: [ScriptedFunctionCall] {
        functionCalls.isEmpty ? [ScriptedFunctionCall(name: functionName, arguments: functionArguments, callID: callID)] : functionCalls
    }
    /// The answer audio streamed after the function output (24 kHz PCM16); an out-of-band response speaks
    /// it too.
    public var answerAudio: [Int16] = []
    /// Without `answerAudio`, an out-of-band response speaks a 440 Hz tone this long per character of its text.
    public var outOfBandToneMillisecondsPerCharacter = 60
    public var answerTranscript = "You have nothing on your calendar today."
    /// A reasoning model's spoken preamble (24 kHz PCM16), its own assistant message item ahead of the
    /// function call in the turn's first response. Empty: a model that speaks none.
    public var preambleAudio: [Int16] = []
    public var preambleTranscript = "One moment, let me ask Jarvis."
    /// The answer response starts with the preamble item too (two message items in one response).
    public var preambleBeforeAnswer = false
    /// When the session's instructions contain this, the turn's first response also says the filler the
    /// model was told to say (after the preamble, before the function call). nil: never.
    public var fillerMarker: String?
    public var fillerAudio: [Int16] = []
    public var fillerTranscript = "Let me ask Jarvis."
    /// Samples per `response.output_audio.delta` (default 100 ms).
    public var samplesPerDelta = 2400
    /// Energy VAD: RMS threshold in PCM16 units (default ~ -34 dBFS), speech start and the default silence.
    public var vadThresholdRMS = 650.0
    public var vadStartMs = 60
    public var defaultSilenceMs = 200
    /// Drop the TCP connection (no close frame) after this many answer deltas, on connection 1 only.
    public var dropConnectionAfterDeltas: Int?
    /// Pause between answer deltas so cancels can land mid-answer (the real server is faster than real time too).
    public var deltaPause: Duration = .milliseconds(1)
    /// Answer WebSocket pings with pongs on connection 1 (false: a silently dead peer).
    public var answerPings = true

    public init() {}
}

/// One function call the stand-in's model makes.
public struct ScriptedFunctionCall: Sendable, Equatable {
    public var name: String
    /// The JSON arguments string, as the model sends it.
    public var arguments: String
    public var callID: String

    public init(name: String, arguments: String, callID: String) {
        self.name = name
        self.arguments = arguments
        self.callID = callID
    }
}

/// One client event as it arrived.
public struct RecordedClientEvent: Sendable {
    /// 1-based connection number.
    public var connection: Int
    public var type: String
    public var json: JSONValue
    public var text: String
}

/// Things the test asks the stand-in to do now, on the newest connection.
public enum RealtimeStandInAction: Sendable, Equatable {
    /// An `error` event (benign codes like `conversation_already_has_active_response` too).
    case error(code: String, message: String)
    /// A text frame that is not JSON.
    case malformedJSON
    /// A well-formed event of a type the client does not know.
    case unknownEvent(type: String)
    /// A known event type with a required field missing.
    case malformedEvent(type: String)
    /// Close the TCP connection without a close frame.
    case dropConnection
    /// `error` `session_expired`, then close 1001 with the same text.
    case expireSession
    /// Send a close frame with this code.
    case close(code: Int, reason: String)
}

/// An assistant message item the stand-in's model started to speak.
public struct SpokenItem: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A reasoning model's own preamble.
        case preamble
        /// The acknowledgement the session's instructions asked for (`fillerMarker`).
        case filler
        case answer
        /// A response with `conversation: "none"` (e.g. an announcement read into a buffer).
        case outOfBand
    }

    public var id: String
    public var responseID: String
    public var kind: Kind
    /// The whole item's audio as scripted (a cancel may have cut what was sent).
    public var audioMilliseconds: Int
}
