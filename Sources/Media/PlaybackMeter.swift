import AudioCore
import Synchronization

/// Sits between a stream source and the `MediaOutput` and counts the seconds the output accepted,
/// so a position is "accepted − still queued" (what the listener has heard). One per playback segment.
final class PlaybackMeter: PCMSink, @unchecked Sendable {
    let output: any MediaOutput
    private let accepted = Mutex(0.0)

    init(output: any MediaOutput) {
        self.output = output
    }

    func write(_ samples: UnsafeBufferPointer<Int16>, format: AudioFormat) -> Int {
        let frames = output.write(samples, format: format)
        if frames > 0 {
            accepted.withLock { $0 += Double(frames) / Double(max(1, format.sampleRate)) }
        }
        return frames
    }

    func finish() {
        output.finish()
    }

    func setTaggedLoudness(_ loudness: Double) {
        output.setTaggedLoudness(loudness)
    }

    /// Seconds the output took from this segment.
    var acceptedSeconds: Double { accepted.withLock { $0 } }

    /// Seconds of this segment heard so far.
    var heardSeconds: Double { max(0, acceptedSeconds - output.queuedSeconds) }
}
