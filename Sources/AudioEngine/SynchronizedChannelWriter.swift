import AudioCore

/// Plays timestamped audio on a mixer input so that every frame leaves the speaker when it is due: the
/// player side of multi-room sync. Each `pump` keeps `leadMilliseconds` queued on the input; before each
/// block it compares when the block's first frame will be heard (the mixer's `MixerPlaybackStamp`, which
/// follows the device clock) with when it is due, and corrects:
/// - far off (a start, a gap, a stall): jumps, dropping late frames or writing silence until due;
/// - a frame or more off (two crystals drifting apart): drops or repeats one frame in the next block.
/// A frame here is 21 µs at 48 kHz; the echo canceller sees the result, since its reference is the mix.
/// Between blocks of audio the input is kept fed with silence, so the stamp's timeline never breaks.
///
/// One producer thread (whoever calls `pump`); the mixer is thread-safe.
public final class SynchronizedChannelWriter: @unchecked Sendable {
    public struct Configuration: Sendable, Equatable {
        /// Audio kept queued on the input: more than the playback loop renders ahead between conversations,
        /// with room for a producer that runs late (a busy machine) without the input running dry.
        public var leadMilliseconds = 400
        /// Audio written per block (one timing check each).
        public var blockMilliseconds = 10
        /// A median error beyond this jumps instead of drifting back (µs).
        public var jumpMicroseconds = 2_000
        /// A single error beyond this jumps at once, without waiting for the median (µs).
        public var immediateJumpMicroseconds = 50_000
        /// Blocks whose errors make up the median.
        public var medianBlocks = 5

        public init() {}
    }

    /// How the last blocks met their time.
    public struct Timing: Sendable, Equatable {
        /// The median error of the last blocks, heard minus due (positive: late), nanoseconds.
        public var errorNanoseconds: Int64
        public var jumps: Int
        public var framesDropped: Int
        public var framesRepeated: Int
    }

    public let mixer: Mixer
    public let channel: MixerChannel
    public let configuration: Configuration
    private let leveling: LoudnessTarget?
    private var writer: PlaybackChannelWriter?
    private var leveler: LoudnessLeveler?
    /// The input's written-stream index of the writer's first frame.
    private var writerBase = 0
    private var scratch: [Int16] = []
    private var errors: [Int64] = []
    /// The last block was part of a jump (a jump to a time far ahead takes several blocks of silence).
    private var jumping = false
    public private(set) var timing = Timing(errorNanoseconds: 0, jumps: 0, framesDropped: 0, framesRepeated: 0)

    public init(mixer: Mixer, channel: MixerChannel, leveling: LoudnessTarget?, configuration: Configuration = Configuration()) {
        self.mixer = mixer
        self.channel = channel
        self.leveling = leveling
        self.configuration = configuration
    }

    /// Tops the input up from `queue`, whose frame with server time `t` is due at local CLOCK_MONOTONIC
    /// `t + playOffsetNanoseconds`. Writes nothing until the playback device runs (no stamp yet).
    public func pump(_ queue: inout TimedPCMQueue, playOffsetNanoseconds: Int64) {
        guard let stamp = mixer.playbackStamp(channel) else { return }
        prepare(queue.format)
        guard let writer else { return }
        let device = mixer.format.sampleRate
        let lead = mixer.format.frames(milliseconds: configuration.leadMilliseconds)
        let block = max(1, queue.format.frames(milliseconds: configuration.blockMilliseconds))
        while mixer.framesQueued(channel) < lead {
            let room = min(block, writer.acceptableFrames)
            guard room > 1 else { return }
            let next = writerBase + writer.sourceFramesWritten * device / queue.format.sampleRate
            let heard = stamp.heardNanoseconds(ofFrame: next, sampleRate: device)
            guard !queue.isEmpty else {
                writeSilence(room, format: queue.format)
                continue
            }
            let error = heard - (queue.headNanoseconds + playOffsetNanoseconds)
            let median = record(error)
            if abs(error) > Int64(configuration.immediateJumpMicroseconds) * 1_000
                || abs(median) > Int64(configuration.jumpMicroseconds) * 1_000
            {
                jump(by: error, queue: &queue, room: room)
                continue
            }
            jumping = false
            writeBlock(from: &queue, frames: min(room - 1, queue.frames), correcting: median)
        }
    }

    /// The stream stopped: what is queued plays out; the next audio starts a new timeline.
    public func end() {
        writer?.finish()
        jumping = false
        errors.removeAll()
        leveler = nil
    }

    private func prepare(_ format: AudioFormat) {
        if writer?.sourceFormat != format {
            writer?.finish()
            writer = try? PlaybackChannelWriter(mixer: mixer, channel: channel, sourceFormat: format, quality: 3)
            writerBase = mixer.framesWritten(channel)
            errors.removeAll()
        }
        if scratch.count < (format.sampleRate / 10 + 2) * format.channels {
            scratch = Array(repeating: 0, count: (format.sampleRate / 10 + 2) * format.channels)
        }
        if leveler?.format != format, let target = leveling?.lufs {
            var fresh = LoudnessLeveler(
                format: format, dualMono: format.channels == 1 && mixer.format.channels > 1,
                configuration: LoudnessLeveler.Configuration(target: target))
            fresh.startItem(taggedLoudness: nil)
            leveler = fresh
        }
    }

    /// The median of the last errors, this one included.
    private func record(_ error: Int64) -> Int64 {
        errors.append(error)
        if errors.count > configuration.medianBlocks { errors.removeFirst(errors.count - configuration.medianBlocks) }
        let median = errors.sorted()[errors.count / 2]
        timing.errorNanoseconds = median
        return median
    }

    /// Late: drops what is overdue. Early: silence until the head is due.
    private func jump(by error: Int64, queue: inout TimedPCMQueue, room: Int) {
        let frames = Int(abs(error) * Int64(queue.format.sampleRate) / 1_000_000_000)
        if !jumping { timing.jumps += 1 }
        jumping = true
        errors.removeAll()
        if error > 0 {
            queue.drop(frames)
        } else {
            writeSilence(min(max(1, frames), room), format: queue.format)
        }
    }

    /// Writes `frames` of the queue; a median error of a frame or more drops (late) or repeats (early)
    /// one frame of it, and the errors measured before the correction are forgotten.
    private func writeBlock(from queue: inout TimedPCMQueue, frames: Int, correcting median: Int64) {
        let format = queue.format
        let frameNanoseconds = 1_000_000_000 / Int64(format.sampleRate)
        let channels = format.channels
        if median >= frameNanoseconds, frames > 1 {
            queue.drop(1)
            timing.framesDropped += 1
            errors.removeAll()
        }
        scratch.withUnsafeMutableBufferPointer { buffer in
            var count = queue.read(frames, into: buffer)
            if median <= -frameNanoseconds, count > 0 {
                for c in 0..<channels { buffer[count * channels + c] = buffer[(count - 1) * channels + c] }
                count += 1
                timing.framesRepeated += 1
                errors.removeAll()
            }
            let block = UnsafeMutableBufferPointer(rebasing: buffer[0..<(count * channels)])
            if let target = leveling?.lufs {
                leveler?.configuration.target = target
                leveler?.process(block)
            }
            writer?.write(UnsafeBufferPointer(block))
        }
    }

    private func writeSilence(_ frames: Int, format: AudioFormat) {
        scratch.withUnsafeMutableBufferPointer { buffer in
            let block = UnsafeMutableBufferPointer(rebasing: buffer[0..<(frames * format.channels)])
            block.update(repeating: 0)
            writer?.write(UnsafeBufferPointer(block))
        }
    }
}
