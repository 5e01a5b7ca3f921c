import ALSA
import AudioCore
import Basics
import EchoControl

/// Everything the audio pipeline needs: both devices, channel selection, the capture chain.
/// Defaults: 16 kHz mono capture, 48 kHz stereo playback, 10 ms periods, 4 periods (40 ms) queued in a
/// conversation; between conversations the playback queue is kept between 50 and 150 ms and the mic is
/// read in 100 ms batches (fewer wakeups; the device buffers are sized for that).
public struct AudioPipelineConfiguration: Sendable {
    public var captureDevice: PCMDevice
    public var captureRate: Int
    public var captureChannels: Int
    public var micChannel: Int
    /// A hardware loopback channel of the capture device (ReSpeaker 6-ch firmware: 5); nil: the
    /// mixed output as written by rt:playback is the echo reference.
    public var referenceChannel: Int?
    public var playbackDevice: PCMDevice
    public var playbackFormat: AudioFormat
    public var periodMilliseconds: Int
    public var bufferPeriods: Int
    /// SCHED_FIFO priority of rt:capture and rt:playback; nil: normal scheduling.
    public var fifoPriority: Int32?
    public var chain: CaptureChainConfiguration
    /// How much processed 24 kHz uplink audio may wait for the network side.
    public var uplinkMilliseconds: Int
    public var backoff: Backoff
    /// Between conversations: the playback queue in ms, from the wake mark to the fill (one wakeup per
    /// difference). nil: the short path always.
    public var relaxedPlaybackMilliseconds: ClosedRange<Int>?
    /// Between conversations: the mic is read when this many ms are captured. nil: every period.
    public var relaxedCaptureBatchMilliseconds: Int?
    /// Between conversations, after the talk button goes down (`AudioPipeline.talkButtonPressed`): the
    /// capture chain runs in full this long, so a hold's pre-roll, which starts at the press, is processed
    /// as in a conversation (over radio the chain otherwise only keeps its canceller ready).
    public var pressWakeMilliseconds: Int

    public init(
        captureDevice: PCMDevice = PCMDevice(name: "default"), captureRate: Int = 16_000, captureChannels: Int = 1,
        micChannel: Int = 0, referenceChannel: Int? = nil,
        playbackDevice: PCMDevice = PCMDevice(name: "default"),
        playbackFormat: AudioFormat = AudioFormat(sampleRate: 48_000, channels: 2),
        periodMilliseconds: Int = 10, bufferPeriods: Int = 4, fifoPriority: Int32? = 70,
        chain: CaptureChainConfiguration = CaptureChainConfiguration(), uplinkMilliseconds: Int = 10_000,
        backoff: Backoff = .deviceReopen, relaxedPlaybackMilliseconds: ClosedRange<Int>? = 40...100,
        relaxedCaptureBatchMilliseconds: Int? = 100, pressWakeMilliseconds: Int = 1_500
    ) {
        self.captureDevice = captureDevice
        self.captureRate = captureRate
        self.captureChannels = captureChannels
        self.micChannel = micChannel
        self.referenceChannel = referenceChannel
        self.playbackDevice = playbackDevice
        self.playbackFormat = playbackFormat
        self.periodMilliseconds = periodMilliseconds
        self.bufferPeriods = bufferPeriods
        self.fifoPriority = fifoPriority
        self.chain = chain
        self.uplinkMilliseconds = uplinkMilliseconds
        self.backoff = backoff
        self.relaxedPlaybackMilliseconds = relaxedPlaybackMilliseconds
        self.relaxedCaptureBatchMilliseconds = relaxedCaptureBatchMilliseconds
        self.pressWakeMilliseconds = pressWakeMilliseconds
    }

    /// The relaxed playback queue in periods.
    var relaxedPlaybackPeriods: ClosedRange<Int>? {
        relaxedPlaybackMilliseconds.map { ms in
            let period = max(1, periodMilliseconds)
            let upper = max(bufferPeriods, ms.upperBound / period)
            return min(max(1, ms.lowerBound / period), upper - 1)...upper
        }
    }

    /// The relaxed capture batch in periods.
    var relaxedCapturePeriods: Int? { relaxedCaptureBatchMilliseconds.map { max(1, $0 / max(1, periodMilliseconds)) } }

    /// Device buffers: the conversation's `bufferPeriods`, or room for the relaxed queue plus 100 ms
    /// (playback) and five relaxed batches (capture: neither a late wakeup nor the capture chain's catch-up
    /// when a conversation starts over music, a few hundred ms on a slow board, overruns it).
    var playbackDevicePeriods: Int {
        max(bufferPeriods, (relaxedPlaybackPeriods?.upperBound ?? 0) + 100 / max(1, periodMilliseconds))
    }
    var captureDevicePeriods: Int { max(bufferPeriods, 5 * (relaxedCapturePeriods ?? 0)) }
}
