/// When the samples just written will be heard: right after the write, snd_pcm_delay reported
/// `delayFrames` (playback rate) at CLOCK_MONOTONIC `nanoseconds`.
public struct PlaybackClock: Sendable, Equatable {
    public var delayFrames: Int
    public var nanoseconds: Int64

    public init(delayFrames: Int, nanoseconds: Int64) {
        self.delayFrames = delayFrames
        self.nanoseconds = nanoseconds
    }
}
