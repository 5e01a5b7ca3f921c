import Realtime

/// Latency, tool time and cost of one user turn (speech end → assistant done).
public struct TurnMetrics: Sendable, Equatable, CustomStringConvertible {
    /// End of the user's turn → first assistant audio (usually the filler phrase).
    public var firstAudioMs: Int?
    /// End of the user's turn → first audio of the answer after the tool result.
    public var answerAudioMs: Int?
    public var toolDurationsMs: [Int] = []
    /// Assistant audio items spoken in the turn: a filler or preamble, the answer (a reasoning model may
    /// speak several in one response).
    public var spokenItems = 0
    public var usage = Usage()
    public var estimatedCostUSD: Double = 0
    /// The user talked over the answer and it was stopped (the interruption is a turn of its own).
    public var cutByBargeIn = false

    public init() {}

    public var description: String {
        var parts: [String] = []
        parts.append("first_audio_ms=\(firstAudioMs.map(String.init) ?? "-")")
        parts.append("answer_audio_ms=\(answerAudioMs.map(String.init) ?? "-")")
        parts.append("tool_ms=\(toolDurationsMs.map(String.init).joined(separator: ","))")
        parts.append("items=\(spokenItems)")
        parts.append("tokens_in=\(usage.inputTokens) (audio \(usage.inputAudio), text \(usage.inputText), cached \(usage.cachedTokens))")
        parts.append("tokens_out=\(usage.outputTokens) (audio \(usage.outputAudio), text \(usage.outputText))")
        let cents = (estimatedCostUSD * 100_000).rounded() / 100_000
        parts.append("cost_usd=\(cents)")
        if cutByBargeIn { parts.append("cut_by=barge_in") }
        return "turn: " + parts.joined(separator: " ")
    }
}

/// Collects `TurnMetrics` between the end of the user's speech and the end of the answer.
struct TurnMetricsRecorder: Sendable {
    private(set) var current: TurnMetrics?
    private var turnEnded: EngineTime?
    private var lastItemID: String?

    mutating func userTurnEnded(at now: EngineTime) {
        current = TurnMetrics()
        turnEnded = now
        lastItemID = nil
    }

    mutating func audioReceived(at now: EngineTime, itemID: String, isAnswer: Bool) {
        guard let turnEnded, current != nil else { return }
        if itemID != lastItemID {
            lastItemID = itemID
            current?.spokenItems += 1
        }
        let elapsed = now.milliseconds(since: turnEnded)
        if current?.firstAudioMs == nil { current?.firstAudioMs = elapsed }
        if isAnswer, current?.answerAudioMs == nil { current?.answerAudioMs = elapsed }
    }

    mutating func toolFinished(durationMs: Int) { current?.toolDurationsMs.append(durationMs) }

    mutating func add(_ usage: Usage, pricing: RealtimePricing) {
        guard var turn = current else { return }
        turn.usage = turn.usage + usage
        turn.estimatedCostUSD += pricing.cost(of: usage)
        current = turn
    }

    /// Ends the turn; nil when no turn was open.
    mutating func finish() -> TurnMetrics? {
        defer {
            current = nil
            turnEnded = nil
            lastItemID = nil
        }
        return current
    }
}
