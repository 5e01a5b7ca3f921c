import AudioCore
import Basics
import Codecs

/// How a stream source connects, buffers and retries. Documented defaults.
public struct MediaStreamSettings: Sendable {
    /// Decoded audio held before playback starts (and after each reconnect), to ride out jitter. Default 500 ms.
    public var prebuffer: Duration = .milliseconds(500)
    /// Default 10 s.
    public var connectTimeout: Duration = .seconds(10)
    /// A stream silent this long is dropped and reconnected. Default 10 s.
    public var inactivityTimeout: Duration = .seconds(10)
    /// Compressed bytes buffered in the HTTP client before the transfer pauses (the rest waits in the
    /// kernel's socket buffer; the server is told to slow down by TCP). It need not ride out jitter: a
    /// live server sends in real time, so this fills only with a burst or when playback has fallen
    /// behind, and whatever it holds is memory. Default 64 KiB (4 s at 128 kbit/s).
    public var maxBufferedBytes = 64 * 1_024
    /// Compressed bytes decoded at a time; the sink takes them before the next slice is decoded, so
    /// decoded audio waiting for the sink stays within the prebuffer plus one slice (0.25 s at
    /// 128 kbit/s) however much compressed audio is buffered. Default 4 KiB.
    public var decodeSliceBytes = 4 * 1_024
    /// Delays between reconnects. Default `Backoff.mediaReconnect` (500 ms doubling up to 30 s, ±25 %).
    public var reconnect = Backoff.mediaReconnect
    /// Consecutive failed attempts before giving up. A connection that delivered audio resets the count.
    public var maxConsecutiveFailures = 8
    /// How often a full sink is retried. Default 100 ms: the sink (the mixer's media queue) holds 1 s, and
    /// between conversations the playback thread drains it 100 ms at a time, so a shorter poll mostly finds
    /// no room and costs a wakeup.
    public var backPressurePoll: Duration = .milliseconds(100)
    public var limits = MediaLimits()
    /// The highest bandwidth (bits/s) of an HLS variant chosen; above it the lowest is taken. Default 320 kbit/s.
    public var hlsMaxBandwidth = 320_000
    public var userAgent = "jarvis-voice/1"

    public init() {}
}

/// What a stream source reports to the player, in order.
public enum MediaStreamEvent: Sendable, Equatable {
    /// Connected; `resumedAt` is the byte offset of a Range resume.
    case connected(codec: AudioCodec, name: String?, resumedAt: Int?)
    case format(AudioFormat)
    /// A new now-playing title (ICY StreamTitle or the stream's Ogg comments).
    case title(String)
    /// The prebuffer filled and the sink took the first of it (again after each reconnect).
    case playing
    case reconnecting(attempt: Int, after: Duration, reason: String)
    /// A finite file (podcast) played to its end.
    case ended
    /// Gave up: a permanent error (404, not audio) or too many consecutive failures.
    case failed(String)
    /// The server refused the start offset (HTTP 416): the file changed since its position was kept.
    case startOffsetRefused
}
