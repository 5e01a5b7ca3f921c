import AudioCore
import Basics
import Realtime

/// Sizes of the microphone uplink (24 kHz PCM16 mono, the only PCM the Realtime API takes).
public struct UplinkConfiguration: Sendable, Equatable {
    /// Audio per `input_audio_buffer.append` frame. Default 40 ms (the API takes 20–40 ms chunks well).
    public var chunkMilliseconds: Int
    /// Mic history kept while no conversation captures, so a capture can start at the button press
    /// (a tap is reported at release). Default 1 s.
    public var idleHistory: Duration
    /// Most audio kept while capturing but not yet streaming (the socket is connecting); older audio is
    /// dropped first. Default 8 s.
    public var preRollLimit: Duration
    /// A 20 ms block of captured audio at or above this RMS level counts as speech. Default -40 dBFS: after
    /// echo cancellation and noise suppression a quiet kitchen sits well below -50 dBFS, while a voice at
    /// arm's length from the array reaches -35 to -20 dBFS.
    public var speechThresholdDBFS: Float
    /// How much speech (in 20 ms blocks above the threshold, not necessarily contiguous) a capture must
    /// contain before it "heard speech"; a long hold that heard none is the reset gesture. Default 200 ms.
    public var speechMinimum: Duration

    public init(
        chunkMilliseconds: Int = 40, idleHistory: Duration = .seconds(1), preRollLimit: Duration = .seconds(8),
        speechThresholdDBFS: Float = -40, speechMinimum: Duration = .milliseconds(200)
    ) {
        self.chunkMilliseconds = min(max(chunkMilliseconds, 10), 100)
        self.idleHistory = idleHistory
        self.preRollLimit = preRollLimit
        self.speechThresholdDBFS = speechThresholdDBFS
        self.speechMinimum = speechMinimum
    }
}

/// The uplink's state machine over a pre-roll buffer: idle (a short rolling history), capturing
/// (everything since a given instant, bounded), streaming (whole chunks become append frames).
/// Pure: the caller supplies mic samples as they are drained from the capture ring, with the time.
struct UplinkBuffer {
    enum Mode: Equatable { case idle, capturing, streaming }

    static let sampleRate = AudioFormat.realtime.sampleRate

    let chunkSamples: Int
    let idleSamples: Int
    private(set) var mode = Mode.idle
    private var ring: SampleRing
    private var chunk: [Int16]
    /// Samples dropped because the pre-roll limit was reached (the oldest audio went first).
    private(set) var droppedSamples = 0
    /// Speech in the current capture (pre-roll included); reset when a capture starts.
    private var speech: SpeechActivityDetector
    private var speechReported = false

    init(configuration: UplinkConfiguration) {
        chunkSamples = Self.sampleRate * configuration.chunkMilliseconds / 1000
        idleSamples = Self.samples(in: configuration.idleHistory)
        let limit = max(Self.samples(in: configuration.preRollLimit), idleSamples, chunkSamples)
        ring = SampleRing(capacity: limit)
        chunk = [Int16](repeating: 0, count: chunkSamples)
        speech = SpeechActivityDetector(thresholdDBFS: configuration.speechThresholdDBFS, minimum: configuration.speechMinimum)
    }

    static func samples(in duration: Duration) -> Int {
        max(0, Int(duration.wholeMilliseconds) * sampleRate / 1000)
    }

    var bufferedSamples: Int { ring.count }

    /// New mic samples (the newest audio, ending now).
    mutating func append(_ samples: UnsafeBufferPointer<Int16>) {
        let dropped = ring.append(samples)
        switch mode {
        case .idle: ring.keepLast(idleSamples)
        case .capturing, .streaming:
            droppedSamples += dropped
            speech.feed(samples)
        }
    }

    /// (Re)starts capturing, keeping the buffered audio from `since` (pre-roll) given the current time.
    mutating func capture(since: EngineTime, now: EngineTime) {
        let wanted = Self.samples(in: .milliseconds(max(0, now.milliseconds(since: since))))
        ring.keepLast(wanted)
        mode = .capturing
        speech.reset()
        speechReported = false
        ring.visitOldestFirst { speech.feed($0) }
    }

    /// True once per capture, when it has heard speech (pre-roll included).
    mutating func takeSpeechDetected() -> Bool {
        guard mode != .idle, speech.heard, !speechReported else { return false }
        speechReported = true
        return true
    }

    /// Starts streaming; returns the buffered audio as frames (whole chunks; the rest follows later).
    mutating func stream() -> [String] {
        guard mode != .idle else { return [] }
        mode = .streaming
        return takeFrames(includingPartial: false)
    }

    /// Frames ready to go while streaming (whole chunks only).
    mutating func readyFrames() -> [String] {
        mode == .streaming ? takeFrames(includingPartial: false) : []
    }

    /// Stops: while streaming, everything captured goes out (the last frame may be short); captured audio
    /// that was never streamed is discarded.
    mutating func stop() -> [String] {
        let frames = mode == .streaming ? takeFrames(includingPartial: true) : []
        mode = .idle
        ring.keepLast(0)
        return frames
    }

    private mutating func takeFrames(includingPartial: Bool) -> [String] {
        var frames: [String] = []
        while ring.count >= chunkSamples || (includingPartial && !ring.isEmpty) {
            let n = chunk.withUnsafeMutableBufferPointer { ring.copyFirst(into: $0) }
            ring.dropFirst(n)
            frames.append(chunk.withUnsafeBufferPointer { AudioAppendFrame.text(samples: UnsafeBufferPointer(rebasing: $0[0..<n])) })
        }
        return frames
    }
}
