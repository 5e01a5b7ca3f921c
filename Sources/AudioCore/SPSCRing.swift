import Synchronization

/// A lock-free single-producer/single-consumer ring of trivially copyable elements (audio samples).
///
/// Storage is allocated once in `init`; `write` and `read` never allocate, lock or block, so they
/// are safe on the realtime threads. Exactly one thread may call the producer side (`write`,
/// `availableToWrite`) and exactly one the consumer side (`read`, `peek`, `skip`, `availableToRead`).
/// Indices grow monotonically (wrapping at `Int.max` is out of reach at audio rates) and the
/// release/acquire pair on them publishes the element memory between the two threads.
public final class SPSCRing<Element: BitwiseCopyable>: @unchecked Sendable {
    public let capacity: Int
    private let storage: UnsafeMutablePointer<Element>
    private let head = Atomic<Int>(0)  // next index to read; written by the consumer
    private let tail = Atomic<Int>(0)  // next index to write; written by the producer

    public init(capacity: Int, zero: Element) {
        precondition(capacity > 0, "SPSCRing capacity must be positive")
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: zero, count: capacity)
    }

    deinit { storage.deallocate() }

    /// Elements the consumer can read now.
    public var availableToRead: Int {
        tail.load(ordering: .acquiring) - head.load(ordering: .relaxed)
    }

    /// Free space the producer can fill now.
    public var availableToWrite: Int {
        capacity - (tail.load(ordering: .relaxed) - head.load(ordering: .acquiring))
    }

    /// Producer: copies as many elements as fit; returns how many were written.
    @discardableResult
    public func write(_ source: UnsafeBufferPointer<Element>) -> Int {
        let t = tail.load(ordering: .relaxed)
        let free = capacity - (t - head.load(ordering: .acquiring))
        let n = min(free, source.count)
        guard n > 0, let base = source.baseAddress else { return 0 }
        let start = t % capacity
        let first = min(n, capacity - start)
        (storage + start).update(from: base, count: first)
        if n > first { storage.update(from: base + first, count: n - first) }
        tail.store(t + n, ordering: .releasing)
        return n
    }

    /// Consumer: copies up to `destination.count` elements out; returns how many were read.
    @discardableResult
    public func read(into destination: UnsafeMutableBufferPointer<Element>) -> Int {
        let n = peek(into: destination)
        if n > 0 { head.store(head.load(ordering: .relaxed) + n, ordering: .releasing) }
        return n
    }

    /// Consumer: copies without consuming.
    public func peek(into destination: UnsafeMutableBufferPointer<Element>) -> Int {
        let h = head.load(ordering: .relaxed)
        let n = min(tail.load(ordering: .acquiring) - h, destination.count)
        guard n > 0, let base = destination.baseAddress else { return 0 }
        let start = h % capacity
        let first = min(n, capacity - start)
        base.update(from: storage + start, count: first)
        if n > first { (base + first).update(from: storage, count: n - first) }
        return n
    }

    /// Consumer: drops up to `count` elements; returns how many were dropped.
    @discardableResult
    public func skip(_ count: Int) -> Int {
        let h = head.load(ordering: .relaxed)
        let n = min(tail.load(ordering: .acquiring) - h, max(0, count))
        if n > 0 { head.store(h + n, ordering: .releasing) }
        return n
    }
}

extension SPSCRing {
    /// Producer convenience for tests and non-realtime callers.
    @discardableResult
    public func write(_ elements: [Element]) -> Int {
        elements.withUnsafeBufferPointer { write($0) }
    }

    /// Consumer convenience for tests and non-realtime callers (allocates).
    public func read(upTo count: Int) -> [Element] {
        [Element](unsafeUninitializedCapacity: max(0, count)) { buffer, initialized in
            initialized = read(into: buffer)
        }
    }
}
