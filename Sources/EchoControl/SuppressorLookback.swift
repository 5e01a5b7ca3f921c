/// The frames the residual echo suppressor and the preprocessor have not seen while the chain only kept its
/// canceller ready (`CaptureChain.track`): per frame the canceller's output, the aligned reference and mic
/// it was given, and the factor the reference was raised by. A ring of the last `capacity` frames, so the
/// chain can run those stages over them before it produces output again.
///
/// Allocation-free after init; realtime-safe. One thread.
final class SuppressorLookback {
    let frameSize: Int
    /// Owns the frames below.
    private let buffers = BufferStore()
    private let mic: UnsafeMutablePointer<Int16>
    private let reference: UnsafeMutablePointer<Int16>
    private let output: UnsafeMutablePointer<Int16>
    private let gains: UnsafeMutablePointer<Int>
    private var slots: FrameRingSlots

    init(frameSize: Int, capacity: Int) {
        self.frameSize = frameSize
        slots = FrameRingSlots(capacity: capacity)
        mic = buffers.take(slots.capacity * frameSize, 0)
        reference = buffers.take(slots.capacity * frameSize, 0)
        output = buffers.take(slots.capacity * frameSize, 0)
        gains = buffers.take(slots.capacity, 1)
    }

    var capacity: Int { slots.capacity }
    /// Frames held (at most `capacity`).
    var count: Int { slots.count }
    /// Frames recorded since the last `clear`, the overwritten ones too.
    var recorded: Int { slots.recorded }

    /// One more frame; the oldest goes once `capacity` are held.
    func record(
        mic frameMic: UnsafeBufferPointer<Int16>, reference frameReference: UnsafeBufferPointer<Int16>,
        output frameOutput: UnsafeBufferPointer<Int16>, gain: Int
    ) {
        let slot = slots.advance()
        let base = slot * frameSize
        for i in 0..<frameSize {
            mic[base + i] = frameMic[i]
            reference[base + i] = frameReference[i]
            output[base + i] = frameOutput[i]
        }
        gains[slot] = gain
    }

    /// The frames held, oldest first: the canceller's output (which `body` may change in place), the
    /// reference and mic it was given, the reference gain.
    func visitOldestFirst(
        _ body: (UnsafeMutableBufferPointer<Int16>, UnsafeBufferPointer<Int16>, UnsafeBufferPointer<Int16>, Int) -> Void
    ) {
        slots.forEachOldestFirst { slot in
            let base = slot * frameSize
            body(
                UnsafeMutableBufferPointer(start: output + base, count: frameSize),
                UnsafeBufferPointer(start: reference + base, count: frameSize),
                UnsafeBufferPointer(start: mic + base, count: frameSize), gains[slot])
        }
    }

    /// `frames` frames went by that were never recorded (the chain rested through them): what is held
    /// comes before them and is dropped, and they count as recorded (seen by nobody).
    func skipped(frames: Int) { slots.skipped(frames: frames) }

    func clear() { slots.clear() }
}
