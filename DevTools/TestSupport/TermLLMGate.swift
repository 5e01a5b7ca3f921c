import Synchronization

/// A gate a test opens to let a held turn continue (see `TermLLMTurnPlan.Step.hold`).
public final class TermLLMGate: Sendable {
    private let opened = Atomic<Bool>(false)

    public init() {}

    public func open() { opened.store(true, ordering: .releasing) }
    public var isOpen: Bool { opened.load(ordering: .acquiring) }
}
