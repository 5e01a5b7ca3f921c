import AudioCore

/// Where the player's audio goes: a `PCMSink` that can also drop what it still holds (stop, skip) and
/// say how much audio is queued but not yet heard (for positions). One stream writes at a time; the
/// player guarantees that, so implementations need no locking for `write`.
public protocol MediaOutput: PCMSink, Sendable {
    /// Drops queued audio at once (with the mixer's short fade) and forgets resampler state.
    func flush()
    /// Seconds accepted by `write` that have not been played yet.
    var queuedSeconds: Double { get }
}

extension MixerMediaSink: MediaOutput {
    public func flush() {
        flushChannel()
    }

    public var queuedSeconds: Double {
        Double(mixer.framesQueued(channel)) / Double(max(1, mixer.format.sampleRate))
    }
}
