import AudioCore
import AudioEngine

/// Feeds one mixer input from the runner's loop through a `PlaybackChannelWriter`: a backlog for audio
/// that arrives faster than real time, the resampler tail pushed out when the input is about to run
/// dry, flushes that new audio cannot race, and the played count in source samples since the last
/// flush (from the mixer's playhead).
final class VoiceChannelFeeder {
    let writer: PlaybackChannelWriter
    private var mixer: Mixer { writer.mixer }
    private var channel: MixerChannel { writer.channel }
    private let lowWaterFrames: Int
    private var backlog = SampleBacklog()
    /// Source samples queued since the last flush (backlog included).
    private(set) var received = 0
    /// The mixer's written-stream index where audio after the last flush starts.
    private var base = 0
    /// A flush the render thread has not carried out yet: writing now would be dropped by it.
    private var pendingFlush: Int?
    /// The resampler's last samples were pushed out (`finish`) since the last write.
    private var tailPushed = true
    /// After `finish` the resampler holds silence; it is reset before the next stream starts.
    private var needsReset = false
    /// When everything queued was first seen rendered, and the device delay then (frames still ahead
    /// of the listener). Once the channel is silent the playhead stops short of the end by the device
    /// delay, so the end counts as heard when that much wall-clock time has passed.
    private var renderedOut: (at: ContinuousClock.Instant, delayFrames: Int)?

    init(writer: PlaybackChannelWriter, lowWaterMilliseconds: Int = 60) {
        self.writer = writer
        lowWaterFrames = writer.deviceFormat.frames(milliseconds: lowWaterMilliseconds)
    }

    var hasPendingAudio: Bool { !backlog.isEmpty }

    func enqueue(_ samples: UnsafeBufferPointer<Int16>) {
        guard !samples.isEmpty else { return }
        backlog.append(samples)
        received += samples.count / writer.sourceFormat.channels
        renderedOut = nil
        pump()
    }

    func flush() {
        backlog.removeAll()
        pendingFlush = mixer.flush(channel)
        base = mixer.framesWritten(channel)
        received = 0
        renderedOut = nil
        writer.reset()
        needsReset = false
        tailPushed = true
    }

    func pump() {
        if let pending = pendingFlush {
            guard mixer.flushesApplied(channel) >= pending else { return }
            pendingFlush = nil
        }
        if !backlog.isEmpty {
            if needsReset {
                writer.reset()
                needsReset = false
            }
            backlog.drain { writer.write($0) * writer.sourceFormat.channels }
            tailPushed = false
        }
        if backlog.isEmpty, !tailPushed, mixer.framesQueued(channel) <= lowWaterFrames, writer.finish() {
            tailPushed = true
            needsReset = true
        }
    }

    /// Source samples heard since the last flush, given the device delay in device frames.
    func played(deviceDelayFrames: Int) -> Int {
        guard pendingFlush == nil, received > 0 else { return 0 }
        let head = mixer.playhead(channel, deviceDelayFrames: deviceDelayFrames)
        let device = max(0, head - base)
        let written = mixer.framesWritten(channel)
        let rendered = backlog.isEmpty && tailPushed && mixer.framesQueued(channel) == 0 && mixer.renderedPosition(channel) >= written
        if rendered {
            if head >= written { return received }
            let now = ContinuousClock.now
            if renderedOut == nil { renderedOut = (now, max(0, deviceDelayFrames)) }
            if let out = renderedOut, now - out.at >= .microseconds(out.delayFrames * 1_000_000 / writer.deviceFormat.sampleRate) {
                return received
            }
        } else {
            renderedOut = nil
        }
        return min(received, device * writer.sourceFormat.sampleRate / writer.deviceFormat.sampleRate)
    }
}
