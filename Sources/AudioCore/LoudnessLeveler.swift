import Glibc

/// Brings a stream to a loudness target slowly: gain = target − the stream's gated loudness over the last
/// 3 s (`LoudnessMeter.gatedLoudness`), gliding at a bounded rate, bounded in boost and cut, holding
/// through gaps and fades, with a peak limiter so boosted audio never clips. Works in place on
/// interleaved Int16 in 10 ms chunks; the rates are per second of audio, not of wall time. Storage is
/// allocated at init only.
public struct LoudnessLeveler: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// LUFS the stream is brought to; nil: leveling off (the gain glides back to 0 dB, then the audio
        /// passes untouched).
        public var target: Double? = -18
        /// At most this much boost: a quiet passage stays quieter than the target rather than its noise
        /// floor rising with it.
        public var maxBoostDB = 12.0
        public var maxCutDB = 24.0
        /// The steady glide: slow enough that a song's dynamics and a talker's emphasis are kept.
        public var slewDBPerSecond = 1.5
        /// The first `acquireSeconds` of audible audio of an item with no loudness tag glide this fast, so
        /// a new station does not play seconds too loud or too quiet.
        public var acquireDBPerSecond = 10.0
        public var acquireSeconds = 3.0
        /// Gated loudness under this is a gap, a fade or hiss: the gain holds instead of raising it.
        public var holdBelowLUFS = -55.0
        /// Sample peaks after the gain stay under this.
        public var ceilingDBFS = -1.0
        /// How fast the limiter lets go after a peak.
        public var limiterReleaseDBPerSecond = 20.0

        public init(target: Double? = -18) {
            self.target = target
        }
    }

    public let format: AudioFormat
    public var configuration: Configuration
    /// The follower's gain, dB (the limiter may apply less).
    public private(set) var gainDB = 0.0
    private var meter: LoudnessMeter
    private let chunkFrames: Int
    /// The linear gain applied at the end of the last chunk (follower and limiter).
    private var appliedGain: Float = 1
    private var acquireFramesLeft = 0
    /// A tag's gain the follower glides to at the acquire rate before following measurement again.
    private var glideTarget: Double?

    /// - Parameter dualMono: a mono stream that plays on both channels of a stereo device (see `LoudnessMeter`).
    public init(format: AudioFormat, dualMono: Bool, configuration: Configuration = Configuration()) {
        self.format = format
        self.configuration = configuration
        meter = LoudnessMeter(format: format, dualMono: dualMono)
        chunkFrames = max(1, format.sampleRate / 100)
        acquireFramesLeft = Int(configuration.acquireSeconds * Double(format.sampleRate))
    }

    /// The gain a loudness tag asks for: target − the track's loudness, within the bounds.
    func gain(forLoudness loudness: Double) -> Double {
        guard let target = configuration.target else { return 0 }
        return min(configuration.maxBoostDB, max(-configuration.maxCutDB, target - loudness))
    }

    /// A new item: measurement starts over; with its tag's loudness (LUFS) the gain starts at the tag's
    /// gain and follows at the steady rate, without one at the current gain and acquires fast.
    public mutating func startItem(taggedLoudness: Double?) {
        meter.reset()
        glideTarget = nil
        if let taggedLoudness {
            gainDB = gain(forLoudness: taggedLoudness)
            appliedGain = Float(pow(10, gainDB / 20))
            acquireFramesLeft = 0
        } else {
            acquireFramesLeft = Int(configuration.acquireSeconds * Double(format.sampleRate))
        }
    }

    /// A tag that arrives within an item (a chained Ogg stream's next track): the gain glides to it fast,
    /// and measurement starts over for the new track.
    public mutating func tagArrived(loudness: Double) {
        meter.reset()
        glideTarget = gain(forLoudness: loudness)
        acquireFramesLeft = 0
    }

    /// Takes over `previous`'s gain and phase (the stream's format changed; measurement starts over).
    public mutating func continueFrom(_ previous: LoudnessLeveler) {
        gainDB = previous.gainDB
        appliedGain = previous.appliedGain
        acquireFramesLeft = previous.acquireFramesLeft
        glideTarget = previous.glideTarget
    }

    /// Levels `samples` in place (interleaved in `format`).
    public mutating func process(_ samples: UnsafeMutableBufferPointer<Int16>) {
        if configuration.target == nil, gainDB == 0, appliedGain == 1, glideTarget == nil { return }
        let channels = format.channels
        var start = 0
        while start < samples.count {
            let count = min(chunkFrames * channels, samples.count - start)
            let chunk = UnsafeMutableBufferPointer(rebasing: samples[start..<(start + count)])
            processChunk(chunk, frames: count / channels)
            start += count
        }
    }

    private mutating func processChunk(_ chunk: UnsafeMutableBufferPointer<Int16>, frames: Int) {
        guard frames > 0 else { return }
        meter.process(UnsafeBufferPointer(chunk))
        follow(frames: frames)
        var (low, high) = (Int16.max, Int16.min)
        for sample in chunk { (low, high) = (min(low, sample), max(high, sample)) }
        let peak = max(Int32(high), -Int32(low))
        var limit = Float(pow(10, gainDB / 20))
        let ceiling = Float(32768 * pow(10, configuration.ceilingDBFS / 20))
        if peak > 0 { limit = min(limit, ceiling / Float(peak)) }
        let seconds = Double(frames) / Double(format.sampleRate)
        let release = Float(pow(10, configuration.limiterReleaseDBPerSecond * seconds / 20))
        // Down at once (every sample of the chunk under the ceiling), up no faster than the release.
        let end = limit < appliedGain ? limit : min(limit, appliedGain * release)
        let begin = limit < appliedGain ? limit : appliedGain
        apply(chunk, frames: frames, from: begin, to: end)
        appliedGain = end
    }

    private mutating func follow(frames: Int) {
        let seconds = Double(frames) / Double(format.sampleRate)
        var desired = gainDB
        var rate = configuration.slewDBPerSecond
        if let glide = glideTarget {
            desired = glide
            rate = configuration.acquireDBPerSecond
            if abs(glide - gainDB) < 1e-9 { glideTarget = nil }
        } else if configuration.target == nil {
            desired = 0
        } else if let loudness = meter.gatedLoudness(), loudness >= configuration.holdBelowLUFS,
            let now = meter.momentaryLoudness, now >= max(configuration.holdBelowLUFS, loudness + LoudnessMeter.relativeGate)
        {
            // Only while the last 400 ms are themselves audible content: in a gap (or as one begins, while
            // the window still holds the sound before it) the gain holds.
            desired = gain(forLoudness: loudness)
            if acquireFramesLeft > 0 {
                rate = configuration.acquireDBPerSecond
                acquireFramesLeft -= frames
            }
        }
        let step = rate * seconds
        gainDB += min(step, max(-step, desired - gainDB))
    }

    private func apply(_ chunk: UnsafeMutableBufferPointer<Int16>, frames: Int, from begin: Float, to end: Float) {
        guard let base = chunk.baseAddress else { return }
        let channels = format.channels
        let delta = (end - begin) / Float(frames)
        var gain = begin
        for frame in 0..<frames {
            gain += delta
            let samples = base + frame * channels
            for c in 0..<channels { samples[c] = Self.scaled(samples[c], by: gain) }
        }
    }

    /// Rounds half away from zero without a libm call; the clamp is the last guard, the limiter the first.
    @inline(__always)
    private static func scaled(_ sample: Int16, by gain: Float) -> Int16 {
        let value = Float(sample) * gain
        return Int16(clamping: Int32(value + (value < 0 ? -0.5 : 0.5)))
    }

    /// The stream's gated loudness over the last 3 s as measured before the gain (nil in a gap).
    public var measuredLoudness: Double? { meter.gatedLoudness() }
}
