import AudioCore

/// The mixer's media channel behind a `PlaybackChannelWriter` (resampled once to the device rate);
/// a new writer is made when the stream's format changes.
/// `@unchecked Sendable`: one producer at a time (the `MediaPlayer` runs one stream at a time and
/// flushes between them); the mixer itself is thread-safe.
public final class MixerMediaSink: MediaOutput, @unchecked Sendable {
    public let mixer: Mixer
    public let channel: MixerChannel
    public let quality: Int
    private var writer: PlaybackChannelWriter?
    /// A flush the render thread has not carried out yet: until it has, new audio would be dropped with
    /// the old, so `write` accepts nothing (the stream source treats that as back-pressure).
    private var pendingFlush: Int?

    /// `quality`: the speexdsp resampler's (0–10). Default 3: a 48-tap Kaiser-windowed sinc (speexdsp's
    /// table: 84.9 % cutoff, about 80 dB stopband; 5 is 80 taps, about 100 dB), the class of MPD's default
    /// (libsamplerate "Fastest Sinc", 80 % bandwidth) and inaudibly different on a kitchen speaker; with
    /// it radio costs what MPD's does (`Benchmarks/mpd`: 1.0× instead of 1.33–1.4× with 5).
    public init(mixer: Mixer, channel: MixerChannel = .media, quality: Int = 3) {
        self.mixer = mixer
        self.channel = channel
        self.quality = quality
    }

    public func write(_ samples: UnsafeBufferPointer<Int16>, format: AudioFormat) -> Int {
        if let flush = pendingFlush {
            guard mixer.flushesApplied(channel) >= flush else { return 0 }
            pendingFlush = nil
        }
        if writer?.sourceFormat != format {
            writer?.finish()
            // Resampler creation only fails for invalid rates, which AudioFormat and mpg123/opus exclude.
            writer = try? PlaybackChannelWriter(mixer: mixer, channel: channel, sourceFormat: format, quality: quality)
        }
        guard let writer else { return samples.count / format.channels }
        return writer.write(samples)
    }

    public func finish() {
        writer?.finish()
    }

    /// Drops what the mixer holds for this channel (5 ms fade) and the resampler history; audio written
    /// afterwards waits until the render thread has applied the flush.
    public func flush() {
        pendingFlush = mixer.flush(channel)
        writer?.reset()
    }

    public var queuedSeconds: Double {
        Double(mixer.framesQueued(channel)) / Double(max(1, mixer.format.sampleRate))
    }
}
