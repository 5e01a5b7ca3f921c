/// The server's clock relative to ours, from Time replies, as snapclient's `TimeProvider` keeps it: each
/// reply gives one offset sample `(c2s - s2c) / 2` (network delay cancels when symmetric), and the offset
/// is the median of the last 200. The median absorbs replies that queued behind audio on the server.
/// All times are monotonic nanoseconds; the offset is server minus client.
public struct SnapcastTimeSync: Sendable, Hashable {
    public static let window = 200
    /// Samples older than this are from another era (a suspended box, a restarted server): start over.
    public static let staleAfterNanoseconds: Int64 = 60_000_000_000

    /// Samples needed before `isSynced`: by default the connect burst's.
    public var minimumSamples: Int
    /// The window, oldest overwritten first.
    private var samples: [Int64] = []
    private var nextSlot = 0
    private var lastSampleAt: Int64?
    /// Median of the window; nil before the first sample.
    public private(set) var offsetNanoseconds: Int64?
    /// Interquartile range of the window: how far apart the middle half of the samples lie.
    public private(set) var spreadNanoseconds: Int64?

    public init(minimumSamples: Int = 50) {
        self.minimumSamples = max(minimumSamples, 1)
        samples.reserveCapacity(Self.window)
    }

    public var sampleCount: Int { samples.count }
    public var isSynced: Bool { samples.count >= minimumSamples }
    public var spreadMicroseconds: Int64? { spreadNanoseconds.map { $0 / 1_000 } }

    /// Adds the sample of one Time reply: `latencyNanoseconds` from its payload (c2s), its header's `sent`
    /// (server clock) and `received` (ours). False, and nothing added, when the arithmetic would overflow.
    @discardableResult
    public mutating func addReply(latencyNanoseconds: Int64, sentNanoseconds: Int64, receivedNanoseconds: Int64) -> Bool {
        let serverToClient = receivedNanoseconds.subtractingReportingOverflow(sentNanoseconds)
        guard !serverToClient.overflow else { return false }
        let twice = latencyNanoseconds.subtractingReportingOverflow(serverToClient.partialValue)
        guard !twice.overflow else { return false }
        add(offsetNanoseconds: twice.partialValue / 2, at: receivedNanoseconds)
        return true
    }

    /// Adds one offset sample measured at local time `at`.
    public mutating func add(offsetNanoseconds offset: Int64, at now: Int64) {
        if let last = lastSampleAt, now.subtractingReportingOverflow(last).partialValue > Self.staleAfterNanoseconds { reset() }
        lastSampleAt = now
        if samples.count < Self.window {
            samples.append(offset)
        } else {
            samples[nextSlot] = offset
            nextSlot = (nextSlot + 1) % Self.window
        }
        // At most 200 values, once a second after the burst: sorting a copy is cheaper than keeping an order.
        let sorted = samples.sorted()
        let middle = sorted.count / 2
        offsetNanoseconds = sorted.count % 2 == 1 ? sorted[middle] : midpoint(sorted[middle - 1], sorted[middle])
        let quartile = sorted.count / 4
        spreadNanoseconds = sorted[sorted.count - 1 - quartile].subtractingReportingOverflow(sorted[quartile]).partialValue
    }

    /// Our `localNow` on the server's clock; nil before the first sample.
    public func serverNow(localNow: Int64) -> Int64? {
        offsetNanoseconds.map { localNow.addingReportingOverflow($0).partialValue }
    }

    /// A server-clock instant (a chunk's timestamp) on our clock; nil before the first sample.
    public func localTime(serverTime: Int64) -> Int64? {
        offsetNanoseconds.map { serverTime.subtractingReportingOverflow($0).partialValue }
    }

    /// Forgets every sample: for a new connection (the server may have restarted or be another host).
    public mutating func reset() {
        samples.removeAll(keepingCapacity: true)
        nextSlot = 0
        lastSampleAt = nil
        offsetNanoseconds = nil
        spreadNanoseconds = nil
    }

    private func midpoint(_ low: Int64, _ high: Int64) -> Int64 {
        low / 2 + high / 2 + (low % 2 + high % 2) / 2
    }
}
