import Synchronization

/// The fixed inputs of the `Mixer`.
public enum MixerChannel: Int, CaseIterable, Sendable, CustomStringConvertible {
    /// The assistant's speech (Realtime `response.output_audio.delta`); flushed on barge-in.
    case voice
    /// Radio and podcasts; ducked while a conversation runs.
    case media
    /// Short cues (listening, reset, error).
    case earcon
    /// The synchronized stream of a multi-room group (Snapcast); ducked and leveled like media.
    case rooms
    /// Announcements to every room of the group (`ctl say --rooms all`), at the voice's volume.
    case announcement

    public var description: String {
        switch self {
        case .voice: "voice"
        case .media: "media"
        case .earcon: "earcon"
        case .rooms: "rooms"
        case .announcement: "announcement"
        }
    }
}

/// Cross-thread state of one mixer input: requests from control threads and counters published by
/// the render thread. Every field is a single atomic word.
final class MixerChannelControl: Sendable {
    let ring: SPSCRing<Int16>
    /// Packed `GainRamp` target (see `Mixer.pack`); last writer wins, re-sending the same is a no-op.
    let gainCommand: Atomic<UInt64>
    /// Incremented per flush request; the render thread acts when it differs from what it saw.
    let flushRequests = Atomic<Int>(0)
    /// Flush requests the render thread has carried out (catches up with `flushRequests`).
    let flushesApplied = Atomic<Int>(0)
    /// The render thread holds the queue instead of playing it (`Mixer.setPaused`).
    let paused = Atomic<Bool>(false)
    // Producer-side counter (frames), written only by the producer thread.
    let written = Atomic<Int>(0)
    // Render-side counters (frames), written only by the render thread.
    let rendered = Atomic<Int>(0)
    let dropped = Atomic<Int>(0)
    let position = Atomic<Int>(0)
    let dryRuns = Atomic<Int>(0)

    init(ringSamples: Int, gainCommand: UInt64) {
        ring = SPSCRing(capacity: ringSamples, zero: 0)
        self.gainCommand = Atomic(gainCommand)
    }
}

/// Render-thread-only state of one input.
struct MixerChannelState {
    var ramp: GainRamp
    var appliedCommand: UInt64
    var flushesSeen = 0
    /// Frames of de-click fade-out left in the fade buffer after a flush, and where they start.
    var fadeFrames = 0
    var fadeOffset = 0
    var wasPlaying = false
    /// Frames dropped by a flush that `position` has not yet stepped over.
    var positionSkip = 0
    /// The input was paused at the last period; on resume the queue fades in over `fadeInFrames` frames.
    var paused = false
    var fadeInLeft = 0
    /// The render thread's own hold (`Mixer.holdVoice`): paused like `MixerChannelControl.paused`.
    var held = false
}
