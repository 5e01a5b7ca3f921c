/// A bounded FIFO of PCM16 samples for non-realtime code (the runner's loop): appending past the
/// capacity drops the oldest samples. Storage is allocated once.
struct SampleRing {
    let capacity: Int
    private var storage: [Int16]
    private var start = 0
    private(set) var count = 0

    init(capacity: Int) {
        precondition(capacity > 0, "SampleRing capacity must be positive")
        self.capacity = capacity
        storage = [Int16](repeating: 0, count: capacity)
    }

    var isEmpty: Bool { count == 0 }

    /// Appends, dropping the oldest samples when full; returns how many old samples were dropped.
    @discardableResult
    mutating func append(_ samples: UnsafeBufferPointer<Int16>) -> Int {
        var dropped = 0
        var source = samples
        if source.count > capacity {
            dropped += count + source.count - capacity
            source = UnsafeBufferPointer(rebasing: source[(source.count - capacity)...])
            start = 0
            count = 0
        }
        let overflow = count + source.count - capacity
        if overflow > 0 {
            dropFirst(overflow)
            dropped += overflow
        }
        var end = (start + count) % capacity
        storage.withUnsafeMutableBufferPointer { buffer in
            for sample in source {
                buffer[end] = sample
                end += 1
                if end == capacity { end = 0 }
            }
        }
        count += source.count
        return dropped
    }

    mutating func dropFirst(_ n: Int) {
        let n = min(max(0, n), count)
        start = (start + n) % capacity
        count -= n
        if count == 0 { start = 0 }
    }

    /// Keeps only the newest `n` samples.
    mutating func keepLast(_ n: Int) {
        dropFirst(count - max(0, n))
    }

    /// Visits the samples, oldest first.
    func visitOldestFirst(_ body: (Int16) -> Void) {
        storage.withUnsafeBufferPointer { buffer in
            var index = start
            for _ in 0..<count {
                body(buffer[index])
                index += 1
                if index == capacity { index = 0 }
            }
        }
    }

    /// Copies the oldest `destination.count` samples (at most `count`) without removing them.
    func copyFirst(into destination: UnsafeMutableBufferPointer<Int16>) -> Int {
        let n = min(destination.count, count)
        storage.withUnsafeBufferPointer { buffer in
            var index = start
            for i in 0..<n {
                destination[i] = buffer[index]
                index += 1
                if index == capacity { index = 0 }
            }
        }
        return n
    }
}

/// An unbounded FIFO of PCM16 samples (assistant speech arrives faster than real time and waits here
/// until the mixer has room).
struct SampleBacklog {
    private var storage: [Int16] = []
    private var start = 0

    var count: Int { storage.count - start }
    var isEmpty: Bool { start == storage.count }

    mutating func append(_ samples: UnsafeBufferPointer<Int16>) {
        storage.append(contentsOf: samples)
    }

    /// Offers the queued samples to `consume`, which returns how many it took; those are removed.
    mutating func drain(_ consume: (UnsafeBufferPointer<Int16>) -> Int) {
        guard !isEmpty else { return }
        let taken = storage.withUnsafeBufferPointer { consume(UnsafeBufferPointer(rebasing: $0[start...])) }
        start += max(0, min(taken, count))
        if start == storage.count {
            storage.removeAll(keepingCapacity: true)
            start = 0
        } else if start >= 48_000, start * 2 >= storage.count {
            storage.removeFirst(start)
            start = 0
        }
    }

    mutating func removeAll() {
        storage.removeAll(keepingCapacity: true)
        start = 0
    }
}
