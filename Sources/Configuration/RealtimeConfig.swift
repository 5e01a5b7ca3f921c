import Realtime

/// `[realtime]`: the OpenAI Realtime (GA) WebSocket session.
public struct RealtimeConfig: Sendable, Equatable {
    public enum TurnDetection: String, Sendable, CaseIterable {
        case semantic
        case server
    }

    public enum Eagerness: String, Sendable, CaseIterable {
        case low, medium, high, auto
    }

    /// WebSocket URL; the service appends `?model=<model>`. `ws://` only for loopback hosts.
    public var url: String = "wss://api.openai.com/v1/realtime"
    public var model: String = RealtimeModels.defaultID
    /// `reasoning.effort` for a reasoning model (not sent to others): low keeps the first word quick.
    public var reasoningEffort: ReasoningEffort = .low
    /// File holding the API key, read by the service user; "" (the default) = the systemd
    /// credential `openai-api-key`, else `$OPENAI_API_KEY`.
    public var apiKeyFile: String = ""
    /// Output voice (`marin` and `cedar` are OpenAI's recommended voices).
    public var voice: String = "marin"
    /// Hands-free turn detection: `semantic_vad` or `server_vad`.
    public var vad: TurnDetection = .semantic
    /// `semantic_vad` eagerness.
    public var vadEagerness: Eagerness = .auto
    /// Log user and assistant transcripts (at info level).
    public var logTranscripts: Bool = false
    /// A conversation ends (and the session closes) after this much quiet.
    public var idleTimeoutSeconds: Double = 10
    /// Give up connecting after this long.
    public var connectTimeoutSeconds: Double = 10

    public init() {}

    public var idleTimeout: Duration { .milliseconds(Int64(idleTimeoutSeconds * 1000)) }
    public var connectTimeout: Duration { .milliseconds(Int64(connectTimeoutSeconds * 1000)) }
}
