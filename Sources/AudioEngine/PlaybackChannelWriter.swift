import AudioCore
import SpeexDSP

extension Resampler: MonoResampler {}

/// The producer side of one `Mixer` input: takes PCM in its source format (voice 24 kHz mono, media
/// 44.1/48 kHz stereo, earcons), maps channels, resamples once to the device rate and queues the
/// result, never more than the mixer's queue has room for. The resampler is speexdsp's, except for
/// ratios it would interpolate (44.1 → 48 kHz): those get `PolyphaseResampler`'s table of the same
/// filter, one dot product per sample.
///
/// Back-pressure: `write` consumes only as many source frames as fit and returns that count; the
/// caller keeps the rest (e.g. in its own backlog) and retries after the playback thread has drained
/// some. `acceptableFrames` estimates the room in source frames.
///
/// Channel mapping: mono sources are resampled once and copied to every device channel; a mono device
/// gets the average of the source channels; otherwise device channel d takes source channel d
/// (d modulo the source count when the device has more channels). Equal rates bypass the resampler
/// (bit-exact).
///
/// One producer thread per instance. `write` does not allocate (buffers are sized in `init`), so it can
/// run on a decoder or network thread without disturbing anything.
public final class PlaybackChannelWriter: @unchecked Sendable {
    public let mixer: Mixer
    public let channel: MixerChannel
    public let sourceFormat: AudioFormat
    public var deviceFormat: AudioFormat { mixer.format }

    /// Source frames consumed since init.
    public private(set) var sourceFramesWritten = 0
    /// Device frames queued into the mixer since init.
    public private(set) var deviceFramesWritten = 0

    private let resamplers: [any MonoResampler]  // one per resampled (mono) stream; empty when rates match
    private let streams: Int  // mono streams that go through the resampler
    private let chunkFrames: Int
    private let outputChunkFrames: Int
    private let monoIn: UnsafeMutableBufferPointer<Int16>  // streams × chunkFrames
    private let monoOut: UnsafeMutableBufferPointer<Int16>  // streams × outputChunkFrames
    private let interleaved: UnsafeMutableBufferPointer<Int16>  // outputChunkFrames × device channels

    /// - Parameters:
    ///   - quality: resampler quality 0...10 as speexdsp's (default 5, speex's desktop default; 3 is cheaper).
    ///   - chunkFrames: source frames converted per step (bounds the preallocated buffers).
    public init(
        mixer: Mixer, channel: MixerChannel, sourceFormat: AudioFormat, quality: Int = 5,
        chunkFrames: Int = 1_024
    ) throws(SpeexDSPError) {
        precondition(chunkFrames > 0, "PlaybackChannelWriter chunkFrames must be positive")
        self.mixer = mixer
        self.channel = channel
        self.sourceFormat = sourceFormat
        self.chunkFrames = chunkFrames
        let device = mixer.format
        streams = sourceFormat.channels == 1 || device.channels == 1 ? 1 : device.channels
        if sourceFormat.sampleRate == device.sampleRate {
            resamplers = []
        } else {
            var made: [any MonoResampler] = []
            for _ in 0..<streams {
                let r: any MonoResampler
                if let table = PolyphaseResampler(inputRate: sourceFormat.sampleRate, outputRate: device.sampleRate, quality: quality),
                    table.phaseCount > 16
                {
                    r = table
                } else {
                    r = try Resampler(inputRate: sourceFormat.sampleRate, outputRate: device.sampleRate, quality: quality)
                }
                r.skipZeros()
                made.append(r)
            }
            resamplers = made
        }
        outputChunkFrames = (chunkFrames * device.sampleRate + sourceFormat.sampleRate - 1) / sourceFormat.sampleRate + 8
        monoIn = .allocate(capacity: streams * chunkFrames)
        monoIn.initialize(repeating: 0)
        monoOut = .allocate(capacity: streams * outputChunkFrames)
        monoOut.initialize(repeating: 0)
        interleaved = .allocate(capacity: outputChunkFrames * device.channels)
        interleaved.initialize(repeating: 0)
    }

    deinit {
        monoIn.deallocate()
        monoOut.deallocate()
        interleaved.deallocate()
    }

    /// Source frames that fit in the mixer's queue now (an estimate; `write` reports the exact count).
    public var acceptableFrames: Int {
        let free = mixer.availableFrames(toWrite: channel)
        return max(0, free * sourceFormat.sampleRate / deviceFormat.sampleRate - 1)
    }

    /// Converts and queues interleaved source samples; returns the source frames consumed (whole
    /// frames; the rest did not fit and should be offered again later).
    @discardableResult
    public func write(_ samples: UnsafeBufferPointer<Int16>) -> Int {
        let total = samples.count / sourceFormat.channels
        var consumed = 0
        while consumed < total {
            let room = min(mixer.availableFrames(toWrite: channel), outputChunkFrames)
            guard room > 0 else { break }
            let n = min(total - consumed, chunkFrames, resamplers.isEmpty ? room : chunkFrames)
            split(samples, from: consumed, frames: n)
            let (used, produced) = convert(frames: n, room: room)
            if produced > 0 { queue(frames: produced) }
            consumed += used
            if used == 0 && produced == 0 { break }
        }
        sourceFramesWritten += consumed
        return consumed
    }

    @discardableResult
    public func write(_ samples: [Int16]) -> Int {
        samples.withUnsafeBufferPointer { write($0) }
    }

    /// Pushes the resampler's filter tail out (the last `inputLatency` frames stay inside until more
    /// input arrives) by feeding that much silence; call at the end of a stream. Returns false if the
    /// queue had no room for all of it.
    @discardableResult
    public func finish() -> Bool {
        guard let latency = resamplers.first?.inputLatency, latency > 0 else { return true }
        var padding = latency
        while padding > 0 {
            let room = min(mixer.availableFrames(toWrite: channel), outputChunkFrames)
            guard room > 0 else { return false }
            let n = min(padding, chunkFrames)
            monoIn.update(repeating: 0)
            let (used, produced) = convert(frames: n, room: room)
            if produced > 0 { queue(frames: produced) }
            padding -= used
            if used == 0 && produced == 0 { return false }
        }
        return true
    }

    /// Clears the resampler history (after the mixer input was flushed, before a new stream).
    public func reset() {
        for r in resamplers {
            r.reset()
            r.skipZeros()
        }
    }

    // MARK: steps

    /// Source frames [from, from+frames) into `streams` mono buffers.
    private func split(_ samples: UnsafeBufferPointer<Int16>, from: Int, frames: Int) {
        let sc = sourceFormat.channels
        if streams == 1 {
            if sc == 1 {
                for f in 0..<frames { monoIn[f] = samples[from + f] }
            } else {
                for f in 0..<frames {
                    var sum = 0
                    for c in 0..<sc { sum += Int(samples[(from + f) * sc + c]) }
                    monoIn[f] = Int16(clamping: sum / sc)
                }
            }
        } else {
            for s in 0..<streams {
                let source = s < sc ? s : s % sc
                let base = s * chunkFrames
                for f in 0..<frames { monoIn[base + f] = samples[(from + f) * sc + source] }
            }
        }
    }

    /// Resamples (or copies) `frames` frames of every stream into `monoOut`; returns (consumed, produced).
    private func convert(frames: Int, room: Int) -> (Int, Int) {
        if resamplers.isEmpty {
            let n = min(frames, room)
            for s in 0..<streams {
                for f in 0..<n { monoOut[s * outputChunkFrames + f] = monoIn[s * chunkFrames + f] }
            }
            return (n, n)
        }
        var result = (0, 0)
        for s in 0..<streams {
            let r = resamplers[s].process(
                input: UnsafeBufferPointer(rebasing: monoIn[(s * chunkFrames)..<(s * chunkFrames + frames)]),
                output: UnsafeMutableBufferPointer(rebasing: monoOut[(s * outputChunkFrames)..<(s * outputChunkFrames + room)]))
            if s == 0 { result = r }
        }
        return result
    }

    /// Interleaves `frames` frames of `monoOut` into the device layout and queues them.
    private func queue(frames: Int) {
        let dc = deviceFormat.channels
        for f in 0..<frames {
            for d in 0..<dc {
                let s = streams == 1 ? 0 : d
                interleaved[f * dc + d] = monoOut[s * outputChunkFrames + f]
            }
        }
        let queued = mixer.write(UnsafeBufferPointer(rebasing: interleaved[0..<(frames * dc)]), to: channel)
        deviceFramesWritten += queued
    }
}
