import ALSATestbed
import AudioCore
import EchoControl
import Glibc
import TestSupport
import Testing

@testable import AudioEngine

/// The hand-over between the idle path (the mic resampled straight into the uplink) and the capture
/// chain, driven period by period as `rt:capture` does, without devices or clocks.
@Suite struct CaptureChainDriverTests {
    /// `before`, then 300 ms of silence and six bursts of noise (100 ms on, 100 ms off), with a silent
    /// reference, through the driver in 10 ms periods; a conversation captures in the periods of
    /// `captures`. Returns the uplink and its loud runs (`CaptureChainTestSignals.loudRuns`).
    private func handOver(captures: [Range<Int>], before: [Int16] = []) throws -> (uplink: [Int16], runs: [(start: Int, length: Int)]) {
        let burst = testNoise(count: 1_600, seed: 11, amplitude: 6_000)
        var mic = before + [Int16](repeating: 0, count: 4_800)
        for _ in 0..<6 { mic += burst + [Int16](repeating: 0, count: 1_600) }
        let chain = try CaptureChain()
        let uplinkRing = SPSCRing<Int16>(capacity: 1 << 17, zero: 0)
        let driver = try CaptureChainDriver(chain: chain, uplink: uplinkRing, captureRate: 16_000, maxPeriodFrames: 160)
        let silence = [Int16](repeating: 0, count: 160)
        var uplink: [Int16] = []
        var scratch = [Int16](repeating: 0, count: 4_800)
        for p in 0..<mic.count / 160 {
            driver.uplinkActive.store(captures.contains { $0.contains(p) }, ordering: .relaxed)
            mic[(p * 160)..<((p + 1) * 160)].withUnsafeBufferPointer { m in
                silence.withUnsafeBufferPointer { driver.process(mic: m, reference: $0, streamRun: 0) }
            }
            let n = scratch.withUnsafeMutableBufferPointer { uplinkRing.read(into: $0) }
            uplink += scratch[0..<n]
        }
        return (uplink, CaptureChainTestSignals.loudRuns(uplink))
    }

    /// The first burst spans periods 30-39: wherever the conversation starts capturing, inside it or
    /// at its edges, every burst arrives as one run of its length, where the idle path alone would put it
    /// (before the fix the chain's delay line put 40 ms of silence into the burst: the same split that
    /// AudioPipelineTests saw on a loaded machine, where its tap can land inside a burst).
    @Test(arguments: [30, 33, 35, 38, 40, 45])
    func aBurstSpokenAcrossTheSwitchArrivesWhole(switchAt: Int) throws {
        let idle = try handOver(captures: [])
        let result = try handOver(captures: [switchAt..<Int.max])
        #expect(idle.runs.count == 6 && idle.runs.allSatisfy { $0.length == 2_640 }, "idle path: \(idle.runs)")
        #expect(result.runs.map(\.start) == idle.runs.map(\.start), "runs \(result.runs), idle path \(idle.runs)")
        #expect(result.runs.map(\.length) == idle.runs.map(\.length), "runs \(result.runs), idle path \(idle.runs)")
        // One stream: the chain's latency (648 samples at 16 kHz) is taken out once, at the switch.
        #expect(idle.uplink.count - result.uplink.count == 972)
    }

    /// A conversation heard a loud 0.5 s, ended, and the next one starts in silence: what the delay line
    /// still held from the first must not reach the uplink (it did, as a 40 ms blip).
    @Test func soundFromThePreviousConversationDoesNotReachTheNextOne() throws {
        let before = testNoise(count: 8_000, seed: 3, amplitude: 6_000)
        let result = try handOver(captures: [0..<50, 70..<Int.max], before: before)
        #expect(result.runs.count == 7, "runs \(result.runs)")
        let switchSample = 70 * 240
        #expect(!result.runs.contains { abs($0.start - switchSample) < 2_400 }, "runs \(result.runs)")
    }

    /// The other way round: a conversation ends inside the first burst. What was still inside the chain
    /// (its latency) reaches the uplink before the idle path goes on: the burst arrives whole (it lost
    /// 40 ms there, and was split), and every burst sits the chain's latency later than the idle path
    /// alone would put it.
    @Test(arguments: [30, 33, 35, 38, 40])
    func aBurstSpokenAcrossTheEndOfAConversationArrivesWhole(endAt: Int) throws {
        let idle = try handOver(captures: [])
        let result = try handOver(captures: [0..<endAt])
        // 972 samples at 24 kHz, as seen through 240-sample windows.
        #expect(result.runs.map(\.start) == idle.runs.map { ($0.start + 972) / 240 * 240 }, "runs \(result.runs), idle path \(idle.runs)")
        #expect(result.runs.map(\.length) == idle.runs.map(\.length), "runs \(result.runs), idle path \(idle.runs)")
    }

    /// Quiet music between conversations through a loopback channel 20 dB under its echo (the ReSpeaker's):
    /// the reference is about -56 dBFS, under the gate's -50, but the chain raised it 8x in the conversation
    /// before, so the gate judges it as the chain scales it and keeps the chain (its canceller) running on
    /// the idle pre-roll. With the reference taken as it comes the chain is skipped. A
    /// hiss under -60 dBFS (an analog loopback while nothing plays) is skipped either way, raised or not.
    @Test(arguments: [true, false])
    func quietMusicThroughAQuietLoopbackKeepsTheChainRunningBetweenConversations(matching: Bool) throws {
        var configuration = CaptureChainConfiguration()
        configuration.matchReferenceLevel = matching
        let chain = try CaptureChain(configuration: configuration)
        let uplinkRing = SPSCRing<Int16>(capacity: 1 << 17, zero: 0)
        let driver = try CaptureChainDriver(chain: chain, uplink: uplinkRing, captureRate: 16_000, maxPeriodFrames: 160)
        // 3 s in a conversation and 1 s idle with the music (-56 dBFS), then 1 s idle with a hiss (-66 dBFS).
        let music = testNoise(count: 16_000 * 4, seed: 5, amplitude: 90)
        let reference = music + testNoise(count: 16_000, seed: 6, amplitude: 30)
        let mic = music.map { Int16(clamping: Int($0) * 10) } + [Int16](repeating: 0, count: 16_000)
        var scratch = [Int16](repeating: 0, count: 4_800)
        var bypassedAt: [Int: Int] = [:]
        for p in 0..<reference.count / 160 {
            if [300, 400, 450].contains(p) { bypassedAt[p] = driver.stats.bypassedFrames }
            driver.uplinkActive.store(p < 300, ordering: .relaxed)
            mic[(p * 160)..<((p + 1) * 160)].withUnsafeBufferPointer { m in
                reference[(p * 160)..<((p + 1) * 160)].withUnsafeBufferPointer {
                    driver.process(mic: m, reference: $0, streamRun: 0)
                }
            }
            _ = scratch.withUnsafeMutableBufferPointer { uplinkRing.read(into: $0) }
        }
        let skippedWithMusic = bypassedAt[400]! - bypassedAt[300]!
        let skippedInHissLastHalf = driver.stats.bypassedFrames - bypassedAt[450]!
        #expect(chain.referenceGain == (matching ? 8 : 1))
        if matching {
            #expect(skippedWithMusic == 0, "\(skippedWithMusic) idle frames of music skipped the chain")
        } else {
            #expect(skippedWithMusic > 0)
        }
        // 0.5 s of 16 ms frames.
        #expect(skippedInHissLastHalf == 31, "\(skippedInHissLastHalf) of the hiss's last 31 frames skipped the chain")
    }
}

/// Radio between conversations: the chain only keeps its canceller adapting, and the uplink carries silence
/// (nobody listens), as many samples as the whole chain would write; listening (a tap, a press of the talk
/// button) brings the whole chain back within the period, driven period by period without devices or clocks.
@Suite struct CaptureChainDriverRadioTests {
    /// 6 s of music-like noise played (its echo 20 ms later, 6 dB down; a voice at the mic from 4 to 5.5 s)
    /// through the driver in 10 ms periods;
    /// `listening(period)` and `pressed(period)` say whether a conversation captures and whether the talk button
    /// has gone down by then. Returns the uplink and the frames tracked at each period.
    private func radio(listening: (Int) -> Bool, pressed: (Int) -> Bool = { _ in false }) throws -> (uplink: [Int16], tracked: [Int]) {
        let seconds = 6
        var noise = CaptureChainTestSignals.White(seed: 17)
        let reference = (0..<16_000 * seconds).map { _ in noise.sample(rms: 3_000) }
        var delay = CaptureChainTestSignals.DelayLine(lag: 320)
        var glottis: Float = 0
        let mic = reference.indices.map { i in
            glottis = 0.7 * glottis + (i % 89 == 0 ? 20_000 : 0)
            let voice = (64_000..<88_000).contains(i) ? glottis : 0
            return CaptureChainTestSignals.clip(Float(delay.push(Int16(reference[i] / 2))) + voice)
        }
        let driver = try CaptureChainDriver(
            chain: try CaptureChain(), uplink: SPSCRing<Int16>(capacity: 1 << 18, zero: 0), captureRate: 16_000, maxPeriodFrames: 160,
            pressWakeMilliseconds: 1_000)
        var uplink: [Int16] = []
        var tracked: [Int] = []
        var scratch = [Int16](repeating: 0, count: 4_800)
        for p in 0..<reference.count / 160 {
            driver.uplinkActive.store(listening(p), ordering: .relaxed)
            if pressed(p) && driver.talkButtonPresses.load(ordering: .relaxed) == 0 { driver.talkButtonPresses.add(1, ordering: .relaxed) }
            mic[(p * 160)..<((p + 1) * 160)].withUnsafeBufferPointer { m in
                reference[(p * 160)..<((p + 1) * 160)].withUnsafeBufferPointer { driver.process(mic: m, reference: $0, streamRun: 0) }
            }
            let n = scratch.withUnsafeMutableBufferPointer { driver.uplink.read(into: $0) }
            uplink += scratch[0..<n]
            tracked.append(driver.stats.trackedFrames)
        }
        return (uplink, tracked)
    }

    /// Tracked until the tap at 3 s, then processed from the tap's period on: the uplink is silent up to
    /// the chain's latency after the tap, carries the processed mic from there, and has the length it has
    /// when the chain runs throughout.
    @Test func aTapOverRadioBringsTheWholeChainBackInItsPeriod() throws {
        let always = try radio(listening: { _ in true })
        let tapped = try radio(listening: { $0 >= 300 })
        #expect(always.tracked.last == 0)
        // 3 s of 16 ms frames (the frame the tap lands in is the chain's).
        #expect(tapped.tracked[299] == 187 && tapped.tracked.last == 187, "tracked \(tapped.tracked[299]), \(tapped.tracked.last ?? -1)")
        #expect(tapped.uplink.count == always.uplink.count)
        // Silent up to the last tracked frame's uplink (187 frames of 384 samples at 24 kHz).
        #expect(tapped.uplink[0..<(187 * 384)].allSatisfy { $0 == 0 })
        // The voice after the tap reaches the uplink as it does from a chain that ran throughout.
        let voice = (400 * 240)..<(550 * 240)
        let level = { (x: ArraySlice<Int16>) in 10 * log10(CaptureChainTestSignals.energy(x) / Double(x.count) + 1) }
        #expect(level(always.uplink[voice]) > 40, "the voice must reach the uplink: \(level(always.uplink[voice])) dB")
        #expect(
            abs(level(tapped.uplink[voice]) - level(always.uplink[voice])) < 1, "\(level(tapped.uplink[voice])) vs \(level(always.uplink[voice])) dB")
    }

    /// The talk button goes down at 2 s and no conversation follows: the whole chain runs for the wake
    /// (1 s), then only tracks again.
    @Test func aPressWakesTheWholeChainForAWhile() throws {
        let result = try radio(listening: { _ in false }, pressed: { $0 >= 200 })
        let tracked = result.tracked
        #expect(tracked[200] - tracked[199] <= 1, "the press's period still tracked")
        #expect(tracked[290] == tracked[201], "tracked during the wake: \(tracked[201]) → \(tracked[290])")
        #expect(tracked[599] > tracked[310] + 100, "tracking again after the wake")
    }
}

/// A capture device may grant a longer period than was asked for (alsa-lib's dsnoop defaults to 1024 frames
/// against the 4 × 240 the driver's scratch holds when 5 ms periods were asked for): every frame still
/// reaches the uplink. The driver once converted only what fit its scratch and dropped the rest.
@Test func aLongerCapturePeriodThanTheScratchLosesNothing() throws {
    let chain = try CaptureChain()
    let uplinkRing = SPSCRing<Int16>(capacity: 1 << 17, zero: 0)
    let driver = try CaptureChainDriver(chain: chain, uplink: uplinkRing, captureRate: 48_000, maxPeriodFrames: 4 * 240)
    let period = 1_024, periods = 94  // ~2 s
    let mic = testNoise(count: period, seed: 7, amplitude: 3_000)
    var uplinkSamples = 0
    var scratch = [Int16](repeating: 0, count: 1 << 16)
    mic.withUnsafeBufferPointer { m in
        for _ in 0..<periods {
            driver.process(mic: m, reference: nil, streamRun: 0)
            uplinkSamples += scratch.withUnsafeMutableBufferPointer { uplinkRing.read(into: $0) }
        }
    }
    // 48 kHz in, 24 kHz out: half as many samples, less the resamplers' and the chain's own delay.
    let expected = periods * period / 2
    #expect(uplinkSamples > expected - 1_200 && uplinkSamples <= expected, "uplink \(uplinkSamples) samples, expected ~\(expected)")
}
