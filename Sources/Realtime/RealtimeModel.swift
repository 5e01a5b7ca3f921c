/// One Realtime model this product knows: its prices, whether it reasons, and its announced shutdown.
public struct RealtimeModel: Sendable, Equatable {
    public var id: String
    public var pricing: RealtimePricing
    /// Takes `reasoning.effort`, and speaks a short preamble of its own before a tool call or an answer
    /// (so it must not also be told to say a filler).
    public var reasons: Bool
    /// The day the API stops serving it (OpenAI's deprecations page), nil while none is announced.
    public var shutdown: CalendarDay?
    /// What OpenAI recommends instead, for a model with a shutdown date.
    public var replacement: String?

    public init(id: String, pricing: RealtimePricing, reasons: Bool, shutdown: CalendarDay? = nil, replacement: String? = nil) {
        self.id = id
        self.pricing = pricing
        self.reasons = reasons
        self.shutdown = shutdown
        self.replacement = replacement
    }

    /// Where the model stands on `day`.
    public func lifecycle(on day: CalendarDay) -> ModelLifecycle {
        guard let shutdown else { return .current }
        let replacement = replacement ?? RealtimeModels.defaultID
        return day < shutdown
            ? .deprecated(shutdown: shutdown, replacement: replacement) : .shutDown(shutdown: shutdown, replacement: replacement)
    }
}

/// A model's standing on a given day.
public enum ModelLifecycle: Sendable, Equatable {
    case current
    /// Still served, with a shutdown announced.
    case deprecated(shutdown: CalendarDay, replacement: String)
    /// Past its shutdown: the API refuses it.
    case shutDown(shutdown: CalendarDay, replacement: String)
    /// Not in this release's table: it may work; its cost is estimated.
    case unknown
}
