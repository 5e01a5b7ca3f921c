/// The Realtime models this release knows, with prices (USD per 1M tokens) and lifecycle.
///
/// Sources: prices from OpenAI's model pages (developers.openai.com/api/docs/models/<id>, Dec 2026: the
/// 2.x and 1.5 pages, the "GPT-Realtime Mini" row on the 2.1-mini page); shutdown dates from the `model`
/// docstring of `openai/types/realtime/realtime_session_create_request.py` in the `openai` Python package
/// 3.63.0 and developers.openai.com/api/docs/deprecations; reasoning from the 2.x pages ("Reasoning model
/// with tool use").
public enum RealtimeModels {
    /// The default: a current reasoning model with reliable tool calls at the mini tier's price (Jarvis
    /// does the thinking; the Realtime model only listens, routes and speaks). README "What it costs".
    public static let defaultID = "gpt-realtime-2.1-mini"
    /// The voices the Realtime models speak with (`marin` and `cedar` are OpenAI's recommended ones).
    public static let voices = ["alloy", "ash", "ballad", "coral", "echo", "sage", "shimmer", "verse", "marin", "cedar"]

    public static let all: [RealtimeModel] = {
        let shutdown = CalendarDay(year: 2027, month: 1, day: 20)
        return [
            RealtimeModel(id: "gpt-realtime-2.1-mini", pricing: .mini, reasons: true),
            RealtimeModel(id: "gpt-realtime-2.1", pricing: .reasoningFull, reasons: true),
            RealtimeModel(id: "gpt-realtime-2", pricing: .reasoningFull, reasons: true),
            RealtimeModel(id: "gpt-realtime-1.5", pricing: .full, reasons: false),
            RealtimeModel(id: "gpt-realtime", pricing: .full, reasons: false, shutdown: shutdown, replacement: "gpt-realtime-2.1"),
            RealtimeModel(
                id: "gpt-realtime-2025-08-28", pricing: .full, reasons: false, shutdown: shutdown, replacement: "gpt-realtime-2.1"),
            RealtimeModel(
                id: "gpt-realtime-mini", pricing: .mini, reasons: false, shutdown: shutdown, replacement: "gpt-realtime-2.1-mini"),
            RealtimeModel(
                id: "gpt-realtime-mini-2025-12-15", pricing: .mini, reasons: false, shutdown: shutdown,
                replacement: "gpt-realtime-2.1-mini")
        ]
    }()

    /// The table's entry for `id`, or nil for a model this release does not know.
    public static func named(_ id: String) -> RealtimeModel? { all.first { $0.id == id } }

    /// Where `id` stands on `day` (`.unknown` when it is not in the table).
    public static func lifecycle(of id: String, on day: CalendarDay) -> ModelLifecycle {
        named(id)?.lifecycle(on: day) ?? .unknown
    }

    /// The table's entry for `id`, or what is assumed of a model it does not know: prices of the dearest
    /// current tier (the journal's cost errs high, not low), and no reasoning (sending `reasoning` to a
    /// model without it is an error).
    public static func model(for id: String) -> RealtimeModel {
        named(id) ?? RealtimeModel(id: id, pricing: .reasoningFull, reasons: false)
    }

    public static func pricing(for id: String) -> RealtimePricing { model(for: id).pricing }

    /// What the owner should know about `id` on `day`, in one sentence naming the key to change, or nil for
    /// a current model.
    public static func advice(for id: String, on day: CalendarDay) -> ModelAdvice? {
        switch lifecycle(of: id, on: day) {
        case .current:
            return nil
        case .deprecated(let shutdown, let replacement):
            let days = day.days(until: shutdown)
            return ModelAdvice(
                severity: .warning,
                text: "the Realtime model \"\(id)\" shuts down on \(shutdown) (in \(days) day\(days == 1 ? "" : "s")); "
                    + "set [realtime] model = \"\(replacement)\"")
        case .shutDown(let shutdown, let replacement):
            return ModelAdvice(
                severity: .error,
                text: "the Realtime model \"\(id)\" was shut down on \(shutdown) and the API refuses it; "
                    + "set [realtime] model = \"\(replacement)\"")
        case .unknown:
            return ModelAdvice(
                severity: .note,
                text: "the Realtime model \"\(id)\" is not one this release knows (`jarvis-voice models` lists them); "
                    + "it may work, and its cost is estimated at the dearest current prices")
        }
    }
}

/// A sentence about the configured model, and how much it matters.
public struct ModelAdvice: Sendable, Equatable {
    public enum Severity: String, Sendable, Equatable {
        /// Worth knowing; nothing is wrong.
        case note
        /// Works today; will stop.
        case warning
        /// The API refuses it now.
        case error
    }

    public var severity: Severity
    public var text: String
}
