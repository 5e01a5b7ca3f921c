import AudioCore

/// Moves microphone audio (24 kHz PCM16, already resampled) from the capture thread's ring to the socket as
/// `input_audio_buffer.append` frames of `chunkSamples`. The audio side only writes the lock-free ring; this
/// side runs in Swift concurrency. While `send` refuses (not connected yet) the ring keeps the audio, so
/// speech during connection setup (pre-roll) is sent once the socket is up, up to the ring's capacity.
public final class UplinkPump: @unchecked Sendable {
    /// 24 kHz samples per append. Default 480 (20 ms); 20–40 ms is sensible.
    public let chunkSamples: Int
    private let ring: SPSCRing<Int16>
    private let scratch: UnsafeMutableBufferPointer<Int16>
    /// Frames sent so far (one consumer only, so no lock).
    public private(set) var framesSent = 0
    public private(set) var samplesSent = 0

    public init(ring: SPSCRing<Int16>, chunkSamples: Int = 480) {
        precondition(chunkSamples > 0)
        self.ring = ring
        self.chunkSamples = chunkSamples
        scratch = .allocate(capacity: chunkSamples)
        scratch.initialize(repeating: 0)
    }

    deinit { scratch.deallocate() }

    /// Sends every full chunk now in the ring (and, with `flush`, the partial rest). Returns frames sent.
    /// `send` returns false when the socket cannot take the frame; the chunk then stays in the ring.
    @discardableResult
    public func pump(flush: Bool = false, send: (String) -> Bool) -> Int {
        var sent = 0
        while true {
            let available = ring.availableToRead
            let count = available >= chunkSamples ? chunkSamples : (flush ? available : 0)
            if count == 0 { return sent }
            let chunk = UnsafeMutableBufferPointer(rebasing: scratch[0..<count])
            let peeked = ring.peek(into: chunk)
            guard send(AudioAppendFrame.text(samples: UnsafeBufferPointer(rebasing: scratch[0..<peeked]))) else { return sent }
            ring.skip(peeked)
            framesSent += 1
            samplesSent += peeked
            sent += 1
        }
    }

    /// Pumps every `chunkSamples` of wall time until the task is cancelled.
    public func run(send: @Sendable (String) -> Bool) async {
        let period = Duration.microseconds(Int64(chunkSamples) * 1_000_000 / 24_000)
        while !Task.isCancelled {
            pump(send: send)
            try? await Task.sleep(for: period)
        }
    }
}
