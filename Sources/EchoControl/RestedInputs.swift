/// The mic and reference frames the chain rested through between conversations (`CaptureChain.track`),
/// as they were given: a ring of the last `capacity` frames, which the canceller adapts on when the chain
/// next runs.
///
/// Allocation-free after init; realtime-safe. One thread.
final class RestedInputs {
    let frameSize: Int
    let capacity: Int
    /// Owns the frames below.
    private let buffers = BufferStore()
    private let mic: UnsafeMutablePointer<Int16>
    private let reference: UnsafeMutablePointer<Int16>
    /// The slot the next frame goes to.
    private var next = 0
    /// Frames held (at most `capacity`).
    private(set) var count = 0
    /// Frames recorded since the last `clear`, the overwritten ones too.
    private(set) var recorded = 0

    init(frameSize: Int, capacity: Int) {
        self.frameSize = frameSize
        self.capacity = max(1, capacity)
        mic = buffers.take(self.capacity * frameSize, 0)
        reference = buffers.take(self.capacity * frameSize, 0)
    }

    /// One more frame; the oldest goes once `capacity` are held.
    func record(mic frameMic: UnsafeBufferPointer<Int16>, reference frameReference: UnsafeBufferPointer<Int16>) {
        let base = next * frameSize
        for i in 0..<frameSize {
            mic[base + i] = frameMic[i]
            reference[base + i] = frameReference[i]
        }
        next = (next + 1) % capacity
        count = min(count + 1, capacity)
        recorded += 1
    }

    /// The frames held, oldest first (mic, reference).
    func visitOldestFirst(_ body: (UnsafeBufferPointer<Int16>, UnsafeBufferPointer<Int16>) -> Void) {
        var slot = (next - count + capacity) % capacity
        for _ in 0..<count {
            let base = slot * frameSize
            body(UnsafeBufferPointer(start: mic + base, count: frameSize), UnsafeBufferPointer(start: reference + base, count: frameSize))
            slot = (slot + 1) % capacity
        }
    }

    /// Drops the frames held; they still count as recorded (a gap before the frames that follow).
    func dropHeld() { count = 0 }

    func clear() {
        count = 0
        recorded = 0
    }
}
