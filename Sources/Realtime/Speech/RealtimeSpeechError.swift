import Basics

/// Why `RealtimeSpeechSynthesizer.speak` returned no audio, in words fit for `ctl say`'s answer. Built from
/// codes and statuses only, never from the API's messages, so no part of a key can end up in it.
public enum RealtimeSpeechError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is empty or only white space.
    case emptyText
    case textTooLong(characters: Int, limit: Int)
    /// No TCP connection: the network, DNS or the host is down.
    case unreachable(RealtimeDisconnect)
    /// Connected, but the WebSocket upgrade was answered with an HTTP status (a rate limit too) or not at all.
    case refusedUpgrade(RealtimeDisconnect)
    /// Connected, but TLS or the upgrade failed otherwise, or the url is unusable.
    case connectFailed(RealtimeDisconnect)
    /// The API rejected the key; `source` says where it was read from.
    case invalidAPIKey(source: String)
    case outOfCredit
    /// The API does not serve the model (retired, or not available to this key).
    case modelNotServed(model: String)
    /// An `error` event for the request (`code`, and the field it names).
    case serverError(code: String, param: String?)
    /// The response ended `cancelled`, `failed` or `incomplete`.
    case responseNotCompleted(status: String, reason: String?)
    /// The connection ended before the response did.
    case connectionLost(RealtimeDisconnect)
    case timedOut(after: Duration)
    /// The response completed without any audio.
    case noAudio
    /// The reading ran past `maxAudio`.
    case audioTooLong(limit: Duration)
    /// An audio delta that is not whole 16-bit samples in base64.
    case malformedAudio
    /// The calling task was cancelled.
    case cancelled

    /// How a connection that failed to open, or ended, reads here.
    init(_ disconnect: RealtimeDisconnect, whileOpening: Bool) {
        switch disconnect.reason {
        case .invalidAPIKey(let source): self = .invalidAPIKey(source: source)
        case .outOfCredit: self = .outOfCredit
        case .modelNotFound(let model): self = .modelNotServed(model: model)
        case .unreachable: self = .unreachable(disconnect)
        case .clientClosed: self = .cancelled
        case .upgradeRejected, .upgradeTimedOut, .rateLimited:
            self = whileOpening ? .refusedUpgrade(disconnect) : .connectionLost(disconnect)
        default: self = whileOpening ? .connectFailed(disconnect) : .connectionLost(disconnect)
        }
    }

    public var description: String {
        switch self {
        case .emptyText: "there is nothing to say"
        case .textTooLong(let characters, let limit): "the text is \(characters) characters long; at most \(limit) can be spoken"
        case .unreachable(let why), .refusedUpgrade(let why), .connectFailed(let why): why.description
        case .invalidAPIKey(let source): RealtimeDisconnect(kind: .fatal, reason: .invalidAPIKey(source: source)).description
        case .outOfCredit: RealtimeDisconnect(kind: .fatal, reason: .outOfCredit).description
        case .modelNotServed(let model): RealtimeDisconnect(kind: .fatal, reason: .modelNotFound(model: model)).description
        case .serverError(let code, let param):
            "the Realtime API refused to speak the text (error \(code)\(param.map { " in \($0)" } ?? ""))"
        case .responseNotCompleted(let status, let reason):
            "the Realtime API stopped speaking the text (\(status)\(reason.map { ": \($0)" } ?? ""))"
        case .connectionLost(let why): "the text was not spoken: \(why)"
        case .timedOut(let after): "the Realtime API did not speak the text within \(Self.seconds(after))"
        case .noAudio: "the Realtime API answered without speech"
        case .audioTooLong(let limit): "the spoken text ran longer than \(Self.seconds(limit)); say something shorter"
        case .malformedAudio: "the Realtime API sent audio that is not 16-bit PCM"
        case .cancelled: "speaking the text was cancelled"
        }
    }

    private static func seconds(_ duration: Duration) -> String {
        let ms = duration.wholeMilliseconds
        return ms % 1000 == 0 ? "\(ms / 1000) s" : "\(Double(ms) / 1000) s"
    }
}
