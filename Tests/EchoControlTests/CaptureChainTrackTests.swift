import Glibc
import TestSupport
import Testing

@testable import EchoControl

/// Between conversations, while the far end plays and nobody listens, the chain only keeps its canceller
/// ready (`CaptureChain.track`: adapting until it explains the echo, then resting on the last seconds); when
/// listening starts, the canceller adapts on what it rested through and the suppressor and the preprocessor
/// catch up on what they missed (`lookback`).
/// One test at a time: each runs seconds of the chain synchronously, and together they would hold the
/// test process's cooperative threads (two on a 2-core machine) from the suites that answer on them.
@Suite(.serialized) struct CaptureChainTrackTests {
    /// One frame per step: `track` where `tracks(frame)`, else `process`; per frame, the canceller's
    /// figures, the verdicts and what the suppressor did, and the output (silent while tracked).
    struct Run {
        var erle: [Float] = []
        var lag: [Double] = []
        var activity: [NearEndActivity] = []
        var suppression: [SuppressionState] = []
        var output: [Int16] = []
    }

    static func run(_ chain: CaptureChain, _ scene: (mic: [Int16], reference: [Int16]), tracks: (Int) -> Bool) -> Run {
        let f = chain.frameSize
        var result = Run()
        var out = [Int16](repeating: 0, count: f)
        for frame in 0..<scene.mic.count / f {
            let range = frame * f..<(frame + 1) * f
            scene.mic.withUnsafeBufferPointer { m in
                scene.reference.withUnsafeBufferPointer { r in
                    let mic = UnsafeBufferPointer(rebasing: m[range]), reference = UnsafeBufferPointer(rebasing: r[range])
                    if tracks(frame) {
                        chain.track(mic: mic, reference: reference)
                        out = [Int16](repeating: 0, count: f)
                    } else {
                        out.withUnsafeMutableBufferPointer { chain.process(mic: mic, reference: reference, output: $0) }
                    }
                }
            }
            result.erle.append(chain.echoReturnLossEnhancementDB)
            result.lag.append(chain.estimatedLagMilliseconds)
            result.activity.append(chain.nearEnd)
            result.suppression.append(chain.suppression)
            result.output += out
        }
        return result
    }

    /// Until its filter explains the echo, the canceller, the delay estimator (here re-aligning a reference
    /// 150 ms late) and the level matcher see exactly what they would in a conversation; then the chain rests,
    /// keeping the last seconds, and adapts on them when listening starts: the conversation meets a filter
    /// fitted to what plays now, within a few dB of one that ran all along, and the same alignment.
    @Test func trackingAdaptsTheCancellerUntilItExplainsTheEchoThenRests() throws {
        let scene = CaptureChainTestSignals.scene(seconds: 10, echoDelay: 2400, ppm: 0, nearEnd: false)
        let always = try CaptureChain(), tracked = try CaptureChain()
        let listen = 500, f = tracked.frameSize
        let a = Self.run(always, scene) { _ in false }
        let before = Self.run(tracked, (Array(scene.mic[..<(listen * f)]), Array(scene.reference[..<(listen * f)]))) { _ in true }
        let rests = try #require(before.erle.firstIndex { $0 > 6 }) + 1
        #expect(Array(before.erle[..<rests]) == Array(a.erle[..<rests]), "the canceller's echo reduction differs while it adapts")
        #expect(rests < listen - tracked.rested.capacity, "the scene must converge the canceller well before listening")
        #expect(tracked.rested.recorded == listen - rests, "rested from frame \(rests): \(tracked.rested.recorded) frames kept")
        // Nobody listens: no verdict while tracked.
        #expect(before.activity.allSatisfy { !$0.nearEndSpeech && !$0.possibleNearEndSpeech })
        let after = Self.run(tracked, (Array(scene.mic[(listen * f)...]), Array(scene.reference[(listen * f)...]))) { _ in false }
        #expect(tracked.realignmentCount == 1 && always.realignmentCount == 1)
        #expect(abs(after.lag.last! - a.lag.last!) < 0.01)
        let worst = zip(after.erle, a.erle[listen...]).map { $0 - $1 }.min()!
        #expect(worst > -3, "echo reduction after listening starts \(worst) dB against the always-on chain")
        #expect(after.erle[0] > 15, "listening meets a converged filter: \(after.erle[0]) dB")
    }

    /// A mic that does not hear the speaker: no filter ever explains an echo, and the chain rests after
    /// adapting 10 s of the far end (more would buy a conversation nothing).
    @Test func aMicThatDoesNotHearTheSpeakerRestsAfterTenSeconds() throws {
        let chain = try CaptureChain()
        let f = chain.frameSize, frames = 14 * 16_000 / f
        var white = CaptureChainTestSignals.White(seed: 3)
        let reference = (0..<frames * f).map { _ in Int16(white.next() * 3000) }
        let mic = [Int16](repeating: 0, count: frames * f)
        let run = Self.run(chain, (mic, reference)) { _ in true }
        let tenSeconds = (10 * 16_000 + f - 1) / f
        #expect(run.erle.allSatisfy { $0 < 6 })
        #expect(chain.rested.recorded == frames - tenSeconds, "rested \(chain.rested.recorded) of \(frames) frames")
    }

    /// A stretch between conversations shorter than the lookback: the suppressor catches up on every frame
    /// it missed, so from the first frame of listening its verdicts and state are those of a chain that ran
    /// all along (only the preprocessor differs slightly: speexdsp links its echo suppression to the
    /// canceller's current state, which has moved on while it catches up).
    @Test func aShortStretchIsCaughtUpFrameForFrame() throws {
        // A small loudspeaker's echo (a residual the suppressor works on) and a voice from 5 to 7 s.
        let full = nonLinearScene(seconds: 8, nearEnd: true)
        let scene = (mic: full.mic, reference: full.reference)
        let always = try CaptureChain(), tracked = try CaptureChain()
        let capacity = tracked.lookback.capacity
        let stretch = 120..<(120 + capacity - 10)
        let a = Self.run(always, scene) { _ in false }
        let t = Self.run(tracked, scene) { stretch.contains($0) }
        let after = stretch.upperBound..<a.activity.count
        #expect(Array(t.activity[after]) == Array(a.activity[after]))
        #expect(Array(t.suppression[after]) == Array(a.suppression[after]))
        #expect(a.activity[after].contains { $0.nearEndSpeech }, "the scene's talker must be heard after the switch")
        let f = tracked.frameSize
        let from = (stretch.upperBound + 2) * f
        let difference = zip(t.output[from...], a.output[from...]).map { Float($0) - Float($1) }
        let error = difference.reduce(Float(0)) { $0 + $1 * $1 }
        let signal = a.output[from...].reduce(Float(0)) { $0 + Float($1) * Float($1) }
        #expect(10 * log10f(error / signal) < -30, "output after the switch \(10 * log10f(error / signal)) dB off")
    }

    /// A stretch longer than the lookback: the suppressor is started afresh on its last frames (what it
    /// learnt before may fit neither the room nor what plays now). Listening starts 4 s into a small
    /// loudspeaker's echo, a voice 1 s later: the echo is taken for nobody, and the voice is heard and kept
    /// as by a chain that ran all along.
    @Test func aLongStretchIsCaughtUpOnItsLastSeconds() throws {
        let full = nonLinearScene(seconds: 8, nearEnd: true)
        let scene = (mic: full.mic, reference: full.reference)
        let always = try CaptureChain(), tracked = try CaptureChain()
        let listen = 250, voice = 312
        #expect(listen > tracked.lookback.capacity)
        let a = Self.run(always, scene) { _ in false }
        let t = Self.run(tracked, scene) { $0 < listen }
        #expect(t.activity[listen..<voice].allSatisfy { !$0.possibleNearEndSpeech }, "the echo taken for a talker")
        let heard = { (run: Run) in run.activity[voice..<(voice + 62)].firstIndex { $0.nearEndSpeech } }
        #expect(
            heard(t) != nil && heard(t) == heard(a),
            "the voice heard at frame \(String(describing: heard(t))), always on \(String(describing: heard(a)))")
        // The voice's first second in the output (the chain's latency later), against the always-on chain's.
        let f = tracked.frameSize
        let window = (voice + 2) * f..<(voice + 2) * f + 16_000
        let kept = 10 * log10(CaptureChainTestSignals.energy(t.output[window]) / CaptureChainTestSignals.energy(a.output[window]))
        #expect(abs(kept) < 1, "the voice's first second \(kept) dB against the always-on chain")
    }

    /// A loopback far below its echo: the level matcher raises the reference 8x while the chain only tracks
    /// (the canceller restarts at the new scale, the suppressor meets it when it catches up). From the first
    /// frame of listening the suppressor predicts the echo as a chain that ran all along does, and takes it
    /// for nobody.
    @Test func aReferenceRaisedWhileTrackingIsMetWhenListeningStarts() throws {
        let base = nonLinearScene(seconds: 8, nearEnd: false)
        let scene = (mic: base.mic, reference: base.reference.map { Int16((Float($0) / 10).rounded()) })
        let always = try CaptureChain(), tracked = try CaptureChain()
        let listen = 400
        let a = Self.run(always, scene) { _ in false }
        let t = Self.run(tracked, scene) { $0 < listen }
        #expect(tracked.referenceGain == 8 && always.referenceGain == 8)
        let second = listen..<(listen + 62)
        let overEcho = { (run: Run) in run.activity[second].map(\.nearToEchoDB).reduce(0, +) / Float(second.count) }
        #expect(overEcho(t) < overEcho(a) + 3, "output over the predicted echo \(overEcho(t)) dB, always on \(overEcho(a)) dB")
        #expect(t.activity[second].allSatisfy { !$0.possibleNearEndSpeech })
    }

    /// Silence in the uplink while tracking, as many samples as `process` would write, and the resampler
    /// starts from a clean history when output resumes: nothing from before the silence follows it.
    @Test func theUplinkCarriesSilenceOfTheSameLength() throws {
        let scene = CaptureChainTestSignals.scene(seconds: 3, echoDelay: 0, ppm: 0, nearEnd: false)
        let chain = try CaptureChain()
        let f = chain.frameSize
        var uplink = [Int16](repeating: 0, count: chain.maxBypassUplinkSamples)
        var output = [Int16](repeating: 0, count: f)
        var counts: [Int] = []
        var silent = true
        for frame in 0..<scene.mic.count / f {
            let range = frame * f..<(frame + 1) * f
            let tracks = (60..<120).contains(frame)
            let n = scene.mic.withUnsafeBufferPointer { m in
                scene.reference.withUnsafeBufferPointer { r in
                    uplink.withUnsafeMutableBufferPointer { u in
                        output.withUnsafeMutableBufferPointer { o in
                            tracks
                                ? chain.track(
                                    mic: UnsafeBufferPointer(rebasing: m[range]), reference: UnsafeBufferPointer(rebasing: r[range]), uplink: u)
                                : chain.process(
                                    mic: UnsafeBufferPointer(rebasing: m[range]), reference: UnsafeBufferPointer(rebasing: r[range]), output: o,
                                    uplink: u)
                        }
                    }
                }
            }
            counts.append(n)
            if tracks { silent = silent && uplink[0..<n].allSatisfy { $0 == 0 } }
        }
        #expect(silent)
        #expect(counts[60..<120].allSatisfy { $0 == 384 }, "\(Set(counts[60..<120]))")
        #expect(counts[120...].allSatisfy { $0 == 384 }, "\(Set(counts[120...]))")
    }
}

/// `reset` leaves nothing of what the suppressor learnt: it then processes exactly as a new one does.
@Test func aResetSuppressorIsANewOne() {
    // The canceller's output stood for by the voice (5 to 7 s) and a twentieth of the echo.
    let full = nonLinearScene(seconds: 8, nearEnd: true)
    let residual = zip(full.mic, full.near).map { CaptureChainTestSignals.clip($1 + 0.05 * (Float($0) - $1)) }
    let scene = (mic: full.mic, reference: full.reference)
    let used = ResidualEchoSuppressor(frameSize: 256, sampleRate: 16000, tailSamples: 3072)
    let fresh = ResidualEchoSuppressor(frameSize: 256, sampleRate: 16000, tailSamples: 3072)
    let frames = scene.mic.count / 256
    let half = frames / 2
    func frame(_ i: Int) -> (mic: [Int16], reference: [Int16]) {
        (Array(scene.mic[i * 256..<(i + 1) * 256]), Array(scene.reference[i * 256..<(i + 1) * 256]))
    }
    let output = { (i: Int) in Array(residual[i * 256..<(i + 1) * 256]) }
    for i in 0..<half {
        var out = output(i)
        used.process(&out, reference: frame(i).reference, mic: frame(i).mic)
    }
    used.reset()
    var heard = false
    for i in half..<frames {
        var a = output(i), b = output(i)
        used.process(&a, reference: frame(i).reference, mic: frame(i).mic)
        fresh.process(&b, reference: frame(i).reference, mic: frame(i).mic)
        #expect(a == b, "frame \(i)")
        #expect(used.activity == fresh.activity && used.state == fresh.state, "frame \(i)")
        heard = heard || fresh.activity.nearEndSpeech
        if a != b { break }
    }
    #expect(heard, "the scene's talker exercises the verdicts")
}
