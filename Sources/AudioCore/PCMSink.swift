/// Where a stream source puts decoded audio. `write` takes what fits and returns the frames
/// accepted; the source keeps the rest and offers it again later (back-pressure).
public protocol PCMSink: AnyObject {
    func write(_ samples: UnsafeBufferPointer<Int16>, format: AudioFormat) -> Int
    /// The stream ended: push out anything held back (the resampler's tail).
    func finish()
    /// The stream's loudness (LUFS) from its own tags (ReplayGain, R128), told before its audio and again
    /// when a chained stream's next track brings new tags.
    func setTaggedLoudness(_ loudness: Double)
}

extension PCMSink {
    public func setTaggedLoudness(_ loudness: Double) {}
}

/// Where the media player's audio goes (`AudioEngine.MixerMediaSink` on the device): a `PCMSink` that can
/// also drop what it holds and say how much is queued but unheard. One stream writes at a time, so
/// implementations need no locking for `write`.
public protocol MediaOutput: PCMSink, Sendable {
    /// Drops queued audio at once (with the mixer's short fade) and forgets resampler state.
    func flush()
    /// Seconds accepted by `write` that have not been played yet.
    var queuedSeconds: Double { get }
}
