import AudioCore
import EchoControl
import Synchronization

/// Pauses the assistant's voice on `rt:playback` the moment the capture chain's near-end detector hears
/// someone, while the conversation engine has armed it; the playback loop then takes back what the device
/// has queued (`PlaybackTakeBack`), at the same wakeup.
///
/// The decision stays the engine's (`BargeInRule`: possible near-end speech over the assistant pauses it
/// at once, `CaptureStatistics.possibleNearEndSpeech`, on whenever the verdict itself is):
/// it arms the reflex exactly while it would pause on the next verdict, and pauses itself when the verdict
/// reaches it at the runner's next tick (`Mixer.setPaused`). The reflex only does it without waiting for
/// that tick: it holds the voice (`Mixer.holdVoice`) while armed and the verdict is on, and lets go when
/// either ends, so a verdict the engine does not take (its state moved on meanwhile) costs no more than
/// the verdict's own length. The engine pauses before it disarms, so a pause it takes never gaps.
public final class NearEndPauseReflex: PlaybackTakeBack, Sendable {
    private let mixer: Mixer
    private let statistics: CaptureStatistics
    private let armed = Atomic<Bool>(false)

    public init(mixer: Mixer, statistics: CaptureStatistics) {
        self.mixer = mixer
        self.statistics = statistics
    }

    /// Set by the conversation (any thread); read at the playback loop's wakeups.
    public var isArmed: Bool {
        get { armed.load(ordering: .acquiring) }
        set { armed.store(newValue, ordering: .releasing) }
    }

    public func wake() {
        // Acquiring `armed` first: a pause the engine set before disarming is seen by the render after.
        mixer.holdVoice(armed.load(ordering: .acquiring) && statistics.possibleNearEndSpeech)
    }

    public func framesToTakeBack(limit: Int) -> Int { mixer.framesToTakeBack(limit: limit) }

    public func takeBack(frames: Int, into output: UnsafeMutableBufferPointer<Int16>) {
        mixer.takeBack(frames: frames, into: output)
    }

    public func renderedPeriodLost() { mixer.renderedPeriodLost() }
}
