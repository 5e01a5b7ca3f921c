/// The slot bookkeeping of a ring that keeps the last `capacity` frames (`SuppressorLookback`,
/// `RestedInputs`): which slot the next frame takes, how many are held, how many went in since `clear`.
///
/// Allocation-free; realtime-safe.
struct FrameRingSlots {
    let capacity: Int
    /// The slot the next frame goes to.
    private var next = 0
    /// Frames held (at most `capacity`).
    private(set) var count = 0
    /// Frames recorded since the last `clear`, the overwritten (and skipped) ones too.
    private(set) var recorded = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The slot for one more frame: the oldest's once `capacity` are held.
    mutating func advance() -> Int {
        let slot = next
        next = (next + 1) % capacity
        count = min(count + 1, capacity)
        recorded += 1
        return slot
    }

    /// The slots held, oldest first.
    func forEachOldestFirst(_ body: (Int) -> Void) {
        var slot = (next - count + capacity) % capacity
        for _ in 0..<count {
            body(slot)
            slot = (slot + 1) % capacity
        }
    }

    /// Drops the frames held; they still count as recorded.
    mutating func dropHeld() { count = 0 }

    /// `frames` frames went by unrecorded: what is held comes before them and is dropped, and they count
    /// as recorded.
    mutating func skipped(frames: Int) {
        count = 0
        recorded += frames
    }

    mutating func clear() {
        count = 0
        recorded = 0
    }
}
