/// The one owner of a DSP stage's preallocated buffers: each is taken here while the stage is built and
/// all are freed together when the store goes, so no stage keeps a hand-written list of what to free.
/// Taking a buffer allocates; using one never does (realtime-safe).
final class BufferStore {
    private var allocations: [UnsafeMutableRawPointer] = []

    /// `count` elements, each `value`.
    func take<Element: BitwiseCopyable>(_ count: Int, _ value: Element) -> UnsafeMutablePointer<Element> {
        let buffer = UnsafeMutablePointer<Element>.allocate(capacity: max(1, count))
        buffer.initialize(repeating: value, count: count)
        allocations.append(UnsafeMutableRawPointer(buffer))
        return buffer
    }

    /// `count` elements the caller writes before it reads them (tables filled at init, scratch).
    func takeUninitialized<Element: BitwiseCopyable>(_ count: Int) -> UnsafeMutablePointer<Element> {
        let buffer = UnsafeMutablePointer<Element>.allocate(capacity: max(1, count))
        allocations.append(UnsafeMutableRawPointer(buffer))
        return buffer
    }

    /// `count` elements, each `value`, as a buffer pointer.
    func takeBuffer<Element: BitwiseCopyable>(_ count: Int, _ value: Element) -> UnsafeMutableBufferPointer<Element> {
        UnsafeMutableBufferPointer(start: take(count, value), count: count)
    }

    /// `count` floats, each `value`.
    func floats(_ count: Int, _ value: Float = 0) -> UnsafeMutablePointer<Float> { take(count, value) }

    deinit {
        for allocation in allocations { allocation.deallocate() }
    }
}
