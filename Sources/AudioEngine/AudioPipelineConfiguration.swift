import ALSA
import AudioCore
import Basics

/// Everything the audio pipeline needs: both devices, channel selection, the capture chain.
/// Defaults: 16 kHz mono capture, 48 kHz stereo playback, 10 ms periods, 4 periods of buffer.
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

    public init(
        captureDevice: PCMDevice = PCMDevice(name: "default"), captureRate: Int = 16_000, captureChannels: Int = 1,
        micChannel: Int = 0, referenceChannel: Int? = nil,
        playbackDevice: PCMDevice = PCMDevice(name: "default"),
        playbackFormat: AudioFormat = AudioFormat(sampleRate: 48_000, channels: 2),
        periodMilliseconds: Int = 10, bufferPeriods: Int = 4, fifoPriority: Int32? = 70,
        chain: CaptureChainConfiguration = CaptureChainConfiguration(), uplinkMilliseconds: Int = 10_000,
        backoff: Backoff = .deviceReopen
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
    }
}
