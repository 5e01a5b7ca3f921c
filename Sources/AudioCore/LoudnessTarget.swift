import Synchronization

/// The loudness target (LUFS) shared by the levelers of media and voice and the configuration reload
/// that changes it; nil turns leveling off. Lock-free, so any thread may read it per buffer.
public final class LoudnessTarget: Sendable {
    /// The bit pattern of the target; NaN's stands for "off".
    private let bits: Atomic<UInt64>

    public init(_ lufs: Double?) {
        bits = Atomic((lufs ?? .nan).bitPattern)
    }

    public var lufs: Double? {
        get {
            let value = Double(bitPattern: bits.load(ordering: .relaxed))
            return value.isNaN ? nil : value
        }
        set { bits.store((newValue ?? .nan).bitPattern, ordering: .relaxed) }
    }
}
