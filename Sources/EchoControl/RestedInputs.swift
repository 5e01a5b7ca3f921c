/// The mic and reference frames the chain rested through between conversations (`CaptureChain.track`),
/// as they were given: a ring of the last `capacity` frames, which the canceller adapts on when the chain
/// next runs.
///
/// Allocation-free after init; realtime-safe. One thread.
final class RestedInputs {
    let frameSize: Int
    /// Owns the frames below.
    private let buffers = BufferStore()
    private let mic: UnsafeMutablePointer<Int16>
    private let reference: UnsafeMutablePointer<Int16>
    private var slots: FrameRingSlots

    init(frameSize: Int, capacity: Int) {
        self.frameSize = frameSize
        slots = FrameRingSlots(capacity: capacity)
        mic = buffers.take(slots.capacity * frameSize, 0)
        reference = buffers.take(slots.capacity * frameSize, 0)
    }

    var capacity: Int { slots.capacity }
    /// Frames held (at most `capacity`).
    var count: Int { slots.count }
    /// Frames recorded since the last `clear`, the overwritten ones too.
    var recorded: Int { slots.recorded }

    /// One more frame; the oldest goes once `capacity` are held.
    func record(mic frameMic: UnsafeBufferPointer<Int16>, reference frameReference: UnsafeBufferPointer<Int16>) {
        let base = slots.advance() * frameSize
        for i in 0..<frameSize {
            mic[base + i] = frameMic[i]
            reference[base + i] = frameReference[i]
        }
    }

    /// The frames held, oldest first (mic, reference).
    func visitOldestFirst(_ body: (UnsafeBufferPointer<Int16>, UnsafeBufferPointer<Int16>) -> Void) {
        slots.forEachOldestFirst { slot in
            let base = slot * frameSize
            body(UnsafeBufferPointer(start: mic + base, count: frameSize), UnsafeBufferPointer(start: reference + base, count: frameSize))
        }
    }

    /// Drops the frames held; they still count as recorded (a gap before the frames that follow).
    func dropHeld() { slots.dropHeld() }

    func clear() { slots.clear() }
}
