import AudioCore
import AudioEngine
import Testing

/// The writer against a simulated sound card whose crystal runs `ppm` off the clock the due times are
/// given in: every period the card's mix is rendered and stamped as the playback loop does, and each
/// click's onset in the card's output is converted to the time it left the speaker.
@Suite struct SynchronizedChannelWriterTests {
    static let format = AudioFormat(sampleRate: 48_000, channels: 2)
    static let clickEveryFrames = 4_800

    /// A click (one full-scale frame) every 100 ms of source time, frame 0 due at server time 0.
    static func sourceBlock(from start: Int, frames: Int) -> [Int16] {
        var block = [Int16](repeating: 0, count: frames * 2)
        for f in 0..<frames where (start + f) % clickEveryFrames == 0 {
            block[f * 2] = 20_000
            block[f * 2 + 1] = 20_000
        }
        return block
    }

    struct Run {
        var onsetErrorsMicroseconds: [Double] = []
        var timing: SynchronizedChannelWriter.Timing
    }

    /// `seconds` of playback; clicks due at `playOffset` after their server time.
    static func play(
        seconds: Int, ppm: Double, sourceRate: Int = 48_000, networkLead: Int64 = 300_000_000,
        gapAt: Int? = nil, relaxed: Bool = false
    ) -> Run {
        let mixer = Mixer(configuration: Mixer.Configuration(format: format))
        let writer = SynchronizedChannelWriter(mixer: mixer, channel: .rooms, leveling: nil)
        let source = AudioFormat(sampleRate: sourceRate, channels: 2)
        var queue = TimedPCMQueue(format: source, capacityFrames: source.sampleRate * 6)
        let deviceRate = 48_000.0 * (1 + ppm * 1e-6)
        let period = 480
        let bufferPeriods = 4
        let playOffset: Int64 = 400_000_000
        var output: [Int16] = []
        var fed = 0
        var written = 0
        var buffer = [Int16](repeating: 0, count: period * 2)
        let periods = seconds * 100
        for k in 0..<periods {
            let now = Int64(Double(k * period) / deviceRate * 1e9)
            // The network delivers 20 ms chunks `networkLead` ahead of their due time.
            while Int64(fed) * 1_000_000_000 / Int64(sourceRate) < now + networkLead - playOffset + 400_000_000 {
                let chunk = sourceBlock(from: fed, frames: source.frames(milliseconds: 20))
                if gapAt.map({ fed >= $0 * sourceRate && fed < ($0 + 1) * sourceRate }) != true {
                    chunk.withUnsafeBufferPointer { queue.append($0, at: Int64(fed) * 1_000_000_000 / Int64(sourceRate)) }
                }
                fed += source.frames(milliseconds: 20)
            }
            writer.pump(&queue, playOffsetNanoseconds: playOffset)
            // Relaxed, as between conversations: wake at 4 periods queued, top up to 10 in one go.
            let playedNow = Int(Double(now) * deviceRate / 1e9)
            let fill = relaxed ? (written - playedNow <= 4 * period ? 10 * period : 0) : bufferPeriods * period
            while written < playedNow + fill {
                buffer.withUnsafeMutableBufferPointer { mixer.render(into: $0) }
                output += buffer
                written += period
                let played = Int(Double(now) * deviceRate / 1e9)
                mixer.stampPlayback(delayFrames: written - played, nanoseconds: now)
            }
        }
        var run = Run(timing: writer.timing)
        var f = 0
        while f < output.count / 2 {
            if output[f * 2] > 10_000 {
                let heard = Double(f) / deviceRate * 1e9
                let sourceFrame =
                    (Int(heard - Double(playOffset)) * sourceRate / 1_000_000_000 + clickEveryFrames / 2) / clickEveryFrames * clickEveryFrames
                let due = Double(sourceFrame) * 1e9 / Double(sourceRate) + Double(playOffset)
                run.onsetErrorsMicroseconds.append((heard - due) / 1_000)
                f += 100
            } else {
                f += 1
            }
        }
        return run
    }

    @Test(arguments: [-50.0, 0, 50])
    func everyClickLeavesTheSpeakerWithinAFewFramesOfItsTime(ppm: Double) {
        let run = Self.play(seconds: 60, ppm: ppm)
        let settled = run.onsetErrorsMicroseconds.dropFirst(5)
        #expect(settled.count > 500)
        let worst = settled.map(abs).max() ?? .infinity
        #expect(worst < 100, "worst \(worst) µs at \(ppm) ppm")
        #expect(run.timing.jumps <= 2, "\(run.timing)")
        if ppm != 0 {
            // 50 ppm over 60 s is 3 ms: about 144 frames to take out or put in.
            let corrections = run.timing.framesDropped + run.timing.framesRepeated
            #expect(corrections > 100 && corrections < 300, "\(run.timing)")
        }
    }

    @Test func aPlaybackLoopThatRendersInBurstsStillPlaysOnTime() {
        let run = Self.play(seconds: 20, ppm: 50, relaxed: true)
        let settled = run.onsetErrorsMicroseconds.dropFirst(5)
        #expect(settled.count > 150)
        #expect((settled.map(abs).max() ?? .infinity) < 100, "\(settled.map(abs).max() ?? 0)")
    }

    @Test func aGapInTheStreamIsSilenceAndTheAudioAfterItIsOnTime() {
        let run = Self.play(seconds: 20, ppm: 30, gapAt: 8)
        let settled = run.onsetErrorsMicroseconds.dropFirst(5)
        #expect(settled.count > 150)
        #expect((settled.map(abs).max() ?? .infinity) < 100)
    }

    @Test func aStreamAtAnotherRateIsResampledAndStillOnTime() {
        let run = Self.play(seconds: 20, ppm: -50, sourceRate: 44_100)
        let settled = run.onsetErrorsMicroseconds.dropFirst(5)
        #expect(settled.count > 150)
        #expect((settled.map(abs).max() ?? .infinity) < 200, "\(settled.map(abs).max() ?? 0)")
    }
}
