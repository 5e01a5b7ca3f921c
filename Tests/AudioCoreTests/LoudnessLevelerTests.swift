import Glibc
import Testing

@testable import AudioCore

/// `LoudnessLeveler` and `LevelingMediaOutput`: sources 12 LU apart end at the target, slowly, without
/// raising gaps or clipping, starting from a tag when there is one; ducking and volume stay the mixer's.
struct LoudnessLevelerTests {
    static let format = AudioFormat(sampleRate: 44_100, channels: 2)

    static func noise(lufs: Double, seconds: Double, seed: UInt64 = 7, format: AudioFormat = format) -> [Int16] {
        let frames = Int(seconds * Double(format.sampleRate))
        return LoudnessSignals.scaled(LoudnessSignals.pinkNoise(frames: frames, channels: format.channels, seed: seed), to: lufs, format: format)
    }

    /// Runs `samples` through `leveler` in `block`-frame buffers (as a stream source writes) and returns them leveled.
    static func level(_ samples: [Int16], with leveler: inout LoudnessLeveler, block: Int = 1_152) -> [Int16] {
        var out = samples
        let channels = leveler.format.channels
        out.withUnsafeMutableBufferPointer { buffer in
            var start = 0
            while start < buffer.count {
                let end = min(buffer.count, start + block * channels)
                leveler.process(UnsafeMutableBufferPointer(rebasing: buffer[start..<end]))
                start = end
            }
        }
        return out
    }

    static func loudness(_ samples: [Int16], from: Double, to: Double, format: AudioFormat = format) -> Double {
        let frame = format.channels
        let slice = Array(samples[(Int(from * Double(format.sampleRate)) * frame)..<(Int(to * Double(format.sampleRate)) * frame)])
        return LoudnessSignals.integrated(slice, format: format)!
    }

    @Test(arguments: [-24.0, -18.0, -12.0])
    func aSourceEndsWithin1LUOfTheTargetAfter10Seconds(_ lufs: Double) {
        var leveler = LoudnessLeveler(format: Self.format, dualMono: false)
        leveler.startItem(taggedLoudness: nil)
        let out = Self.level(Self.noise(lufs: lufs, seconds: 15), with: &leveler)
        let after10 = Self.loudness(out, from: 10, to: 15)
        let first3 = Self.loudness(out, from: 3, to: 6)
        print("leveler: \(lufs) LUFS in, \(first3) LUFS at 3–6 s, \(after10) LUFS at 10–15 s, gain \(leveler.gainDB) dB")
        #expect(abs(after10 + 18) < 1, "\(after10)")
        #expect(abs(first3 + 18) < 1.5, "acquired within 3 s: \(first3)")
    }

    @Test func afterAcquiringTheGainGlidesAtMost1Point5DBPerSecond() {
        var leveler = LoudnessLeveler(format: Self.format, dualMono: false)
        leveler.startItem(taggedLoudness: nil)
        _ = Self.level(Self.noise(lufs: -18, seconds: 6), with: &leveler)
        #expect(abs(leveler.gainDB) < 0.5)
        // The source jumps 10 LU louder: one second later the gain has moved by at most 1.5 dB.
        var gains: [Double] = []
        let loud = Self.noise(lufs: -8, seconds: 8, seed: 9)
        let second = Self.format.sampleRate * 2
        for start in stride(from: 0, to: loud.count, by: second) {
            _ = Self.level(Array(loud[start..<min(loud.count, start + second)]), with: &leveler)
            gains.append(leveler.gainDB)
        }
        let steps = zip(gains.dropFirst(), gains).map { $0 - $1 }
        #expect(steps.allSatisfy { $0 <= 0 && $0 >= -1.5 - 1e-9 }, "\(gains)")
        #expect(gains.last! < -6, "it does follow: \(gains)")
    }

    @Test func aGapDoesNotRaiseTheGain() {
        var leveler = LoudnessLeveler(format: Self.format, dualMono: false)
        leveler.startItem(taggedLoudness: nil)
        _ = Self.level(Self.noise(lufs: -18, seconds: 6), with: &leveler)
        let before = leveler.gainDB
        let hiss = Self.noise(lufs: -65, seconds: 5, seed: 3)  // a pause with hiss under it
        let out = Self.level(hiss, with: &leveler)
        // The first 400 ms of the gap still hold some of the noise: a few tenths of a dB, then it holds.
        #expect(abs(leveler.gainDB - before) < 0.5, "\(before) → \(leveler.gainDB)")
        #expect(Self.loudness(out, from: 1, to: 5) < -64)
    }

    @Test func theBoostIsBoundedAndPeaksStayUnderTheCeiling() {
        var leveler = LoudnessLeveler(format: Self.format, dualMono: false)
        leveler.startItem(taggedLoudness: nil)
        // −40 LUFS with a spike to −3 dBFS every second: +12 dB at most, and no sample over −1 dBFS.
        var quiet = Self.noise(lufs: -40, seconds: 12)
        for second in 0..<12 {
            let at = second * Self.format.sampleRate * 2 + 1_000
            quiet[at] = 23_197
            quiet[at + 1] = -23_197
        }
        let out = Self.level(quiet, with: &leveler)
        #expect(abs(leveler.gainDB - 12) < 1e-9)
        let ceiling = Int32(32_768 * pow(10, -1.0 / 20)) + 1
        #expect(out.map { abs(Int32($0)) }.max()! <= ceiling)
        // Each spike has the limiter take ~10 dB for a moment (released at 20 dB/s): a little under +12 on average.
        let loudness = Self.loudness(out, from: 8, to: 12)
        #expect(loudness < -28 && loudness > -30, "\(loudness)")
    }

    @Test func aTaggedItemStartsAtItsTagsGain() {
        var leveler = LoudnessLeveler(format: Self.format, dualMono: false)
        leveler.startItem(taggedLoudness: -24)
        let source = Self.noise(lufs: -24, seconds: 2)
        let out = Self.level(source, with: &leveler)
        // +6 dB from the very first chunk (the limiter never engages at these levels).
        let head = Self.loudness(out, from: 0, to: 1)
        #expect(abs(head + 18) < 0.3, "\(head)")
    }

    @Test func leavingItOffPassesTheAudioUntouched() {
        var leveler = LoudnessLeveler(format: Self.format, dualMono: false, configuration: .init(target: nil))
        leveler.startItem(taggedLoudness: nil)
        let source = Self.noise(lufs: -30, seconds: 2)
        #expect(Self.level(source, with: &leveler) == source)
    }

    @Test func turningItOffGlidesBackToUnity() {
        var leveler = LoudnessLeveler(format: Self.format, dualMono: false)
        leveler.startItem(taggedLoudness: -24)
        leveler.configuration.target = nil
        _ = Self.level(Self.noise(lufs: -24, seconds: 5), with: &leveler)
        #expect(leveler.gainDB == 0)
        let source = Self.noise(lufs: -24, seconds: 1, seed: 5)
        #expect(Self.level(source, with: &leveler) == source)
    }

    // MARK: the output in front of the mixer

    /// A sink that refuses every other write and takes at most 300 frames.
    final class StingySink: MediaOutput, @unchecked Sendable {
        var received: [Int16] = []
        var refuse = false
        func write(_ samples: UnsafeBufferPointer<Int16>, format: AudioFormat) -> Int {
            refuse.toggle()
            if refuse { return 0 }
            let frames = min(300, samples.count / format.channels)
            received += samples[0..<(frames * format.channels)]
            return frames
        }
        func finish() {}
        func flush() {}
        var queuedSeconds: Double { 0 }
    }

    @Test func theOutputLevelsEverySampleOnceAndInOrderUnderBackPressure() {
        let sink = StingySink()
        let output = LevelingMediaOutput(output: sink, target: LoudnessTarget(-18), outputChannels: 2)
        let source = Self.noise(lufs: -30, seconds: 3)
        output.setTaggedLoudness(-30)
        var offset = 0
        while offset < source.count {
            let taken = source.withUnsafeBufferPointer { output.write(UnsafeBufferPointer(rebasing: $0[offset...]), format: Self.format) }
            offset += taken * 2
        }
        while sink.received.count < source.count {
            _ = output.write(UnsafeBufferPointer(start: nil, count: 0), format: Self.format)
        }
        #expect(sink.received.count == source.count)
        // The tag asked for +12 dB from the first sample: each sample is its source's, raised 12 dB.
        let gain = Float(pow(10, 12.0 / 20))
        let mismatches = zip(source, sink.received).filter { abs(Float($0) * gain - Float($1)) > 1 }.count
        #expect(mismatches == 0)
        #expect(abs(output.gainDB - 12) < 0.5)
    }

    @Test func aFlushStartsTheNextItemFromItsOwnTag() {
        let sink = StingySink()
        let target = LoudnessTarget(-18)
        let output = LevelingMediaOutput(output: sink, target: target, outputChannels: 2)
        output.setTaggedLoudness(-30)
        let source = Array(Self.noise(lufs: -30, seconds: 1)[0..<8_820])
        _ = source.withUnsafeBufferPointer { output.write($0, format: Self.format) }
        #expect(abs(output.gainDB - 12) < 0.01)
        output.flush()
        output.setTaggedLoudness(-14)
        _ = source.withUnsafeBufferPointer { output.write($0, format: Self.format) }
        #expect(abs(output.gainDB + 4) < 0.01)
        // The target is read live (a reload): a new target moves the follower there.
        target.lufs = -20
        #expect(target.lufs == -20)
        target.lufs = nil
        #expect(target.lufs == nil)
    }
}
