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

    /// The key the stand-in accepts in `Authorization: Bearer`.
    public var apiKey = "sk-standin-test-key"
    public var authFailure: AuthFailure = .errorEventThenClose
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
    /// The answer audio streamed after the function output (24 kHz PCM16).
    public var answerAudio: [Int16] = []
    public var answerTranscript = "You have nothing on your calendar today."
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
