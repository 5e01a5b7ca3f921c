import ALSA
import ALSATestbed
import AudioCore
import Glibc
import TestProcess
import Testing

@testable import AudioEngine

/// A paused voice taken back from a paced device (`snd_pcm_rewind`): the speaker falls silent a period
/// after the pause, not after the 80 ms the device had queued, and the answer goes on where it stopped.
/// The device holds 8 periods, so a loop that wakes up to 60 ms late on a loaded machine still has
/// something to take back; the voice lasts 30 s, so a test thread that is late changes only when.
@Suite(.serialized) struct PlaybackTakeBackTests {
    let dir = TemporaryDirectory()

    /// Voice frame `f` carries `1000 + f % 30_000`: where the speaker stopped and went on is readable.
    static func countingVoice(frames: Int) -> [Int16] { (0..<frames).map { Self.value($0) } }
    static func value(_ frame: Int) -> Int16 { Int16(1_000 + frame % 30_000) }
    static let frames = 480_000
    static let mixer = Mixer.Configuration(
        format: AudioFormat(sampleRate: 16_000, channels: 1), voiceQueueMilliseconds: 31_000,
        flushFadeMilliseconds: 5)
    static let pcm = PCMConfiguration(sampleRate: 16_000, channels: 1, periodMicroseconds: 10_000, periods: 8)

    /// A mixer with the counting voice queued.
    func mixerWithVoice() -> Mixer {
        let mixer = Mixer(configuration: Self.mixer)
        let voice = Self.countingVoice(frames: Self.frames)
        #expect(voice.withUnsafeBufferPointer { mixer.write($0, to: .voice) } == Self.frames)
        return mixer
    }

    /// A started playback loop rendering `mixer` into the paced device's `out.raw`.
    func startedLoop(rendering mixer: Mixer, takeBack: any PlaybackTakeBack) throws -> PlaybackLoop {
        let config = dir.file("asound.conf")
        try TestPCMConfig.write([.paced(name: "spk", PacedPCMOptions(outfile: dir.file("out.raw")))], to: config)
        let loop = PlaybackLoop(
            configuration: PlaybackLoopConfiguration(
                device: PCMDevice(name: "spk", configFile: config), pcm: Self.pcm, fifoPriority: nil, fillPeriods: 8,
                takeBack: takeBack)
        ) { mixer.render(into: $0.buffer) }
        try loop.start()
        return loop
    }

    @Test func aPausedVoiceFallsSilentAPeriodAfterThePauseAndGoesOnWhereItStopped() async throws {
        let mixer = mixerWithVoice()
        let loop = try startedLoop(rendering: mixer, takeBack: mixer)
        #expect(await waitUntil { loop.status.frames >= 8_000 })
        mixer.setPaused(true, for: .voice)
        let writtenAtPause = loop.status.frames
        #expect(await waitUntil { loop.status.frames >= writtenAtPause + 3_200 })
        mixer.setPaused(false, for: .voice)
        let writtenAtResume = loop.status.frames
        #expect(await waitUntil { loop.status.frames >= writtenAtResume + 3_200 })
        loop.stop()
        #expect(loop.status.takeBacks == 1)
        // The take-back itself ran nothing dry. (The loop runs without SCHED_FIFO here: under the full suite's
        // load it has underrun elsewhere once, which the frame checks below do not mind.)
        #expect(loop.status.takeBackUnderruns == 0)

        let out = try TestFiles.readSamples(dir.file("out.raw"))
        // Where the voice stops playing straight: the take-back's fade starts there.
        let stop = try #require(out.indices.first { out[$0] != Self.value($0) })
        // The device had queued up to `writtenAtPause` (8 periods, 80 ms) when the pause came; without the
        // take-back all of it plays. Taken back, it stops within the period playing then, or the next.
        #expect(stop < writtenAtPause - 160, "stopped at frame \(stop), \(writtenAtPause) written at the pause")
        #expect(loop.status.framesTakenBack >= writtenAtPause - stop - 2 * 160)
        print("take-back: the voice stopped at frame \(stop) instead of \(writtenAtPause); \(loop.status.framesTakenBack) frames taken back")
        // 5 ms fade out (80 frames), then silence until the resume.
        for f in 1..<79 { #expect(out[stop + f] < out[stop + f - 1]) }
        let resume = try #require(out.indices.first { $0 > stop + 80 && out[$0] != 0 })
        #expect(resume >= writtenAtPause)
        // It fades in over 80 frames and goes on at the frame after the fade out: nothing lost, nothing twice.
        for k in 0..<400 {
            #expect(out[resume + 80 + k] == Self.value(stop + 80 + 80 + k), "frame \(resume + 80 + k)")
        }
        #expect(mixer.renderedPosition(.voice) + mixer.framesQueued(.voice) == Self.frames)
    }

    /// The reflex (`NearEndPauseReflex`): armed, the near-end verdict alone (no `setPaused`) silences the
    /// voice at the loop's next wakeup, the queue taken back, and the end of the verdict lets it go on where
    /// it stopped; unarmed, a verdict changes nothing.
    @Test func anArmedReflexPausesAtTheVerdictAndLetsGoAfterIt() async throws {
        let mixer = mixerWithVoice()
        let statistics = CaptureStatistics(frameMilliseconds: 16)
        let reflex = NearEndPauseReflex(mixer: mixer, statistics: statistics)
        let loop = try startedLoop(rendering: mixer, takeBack: reflex)
        // Not armed: a verdict is only a verdict.
        #expect(await waitUntil { loop.status.frames >= 3_200 })
        statistics.publishFrame(nearEndSpeech: true, farEndActive: true, bypassed: false)
        let framesThen = loop.status.frames
        #expect(await waitUntil { loop.status.frames >= framesThen + 1_600 })
        statistics.publishFrame(nearEndSpeech: false, farEndActive: true, bypassed: false)
        #expect(loop.status.takeBacks == 0)
        reflex.isArmed = true
        #expect(await waitUntil { loop.status.frames >= 8_000 })
        statistics.publishFrame(nearEndSpeech: true, farEndActive: true, bypassed: false)
        let writtenAtVerdict = loop.status.frames
        #expect(await waitUntil { loop.status.frames >= writtenAtVerdict + 3_200 })
        statistics.publishFrame(nearEndSpeech: false, farEndActive: true, bypassed: false)
        let writtenAtEnd = loop.status.frames
        #expect(await waitUntil { loop.status.frames >= writtenAtEnd + 3_200 })
        loop.stop()
        #expect(loop.status.takeBacks == 1)

        let out = try TestFiles.readSamples(dir.file("out.raw"))
        let stop = try #require(out.indices.first { out[$0] != Self.value($0) })
        #expect(stop > framesThen + 1_600, "the unarmed verdict did not pause it")
        #expect(stop < writtenAtVerdict - 160, "stopped at frame \(stop), \(writtenAtVerdict) written at the verdict")
        let resume = try #require(out.indices.first { $0 > stop + 80 && out[$0] != 0 })
        #expect(resume >= writtenAtEnd)
        for k in 0..<400 {
            #expect(out[resume + 80 + k] == Self.value(stop + 80 + 80 + k), "frame \(resume + 80 + k)")
        }
        print("reflex: the voice stopped at frame \(stop), \(writtenAtVerdict) written at the verdict")
    }

    /// A playback thread that runs late in the middle of a take-back (an overloaded or emulated machine): the
    /// period it left playing runs out before the replacement is written. That underrun is the take-back's
    /// own, counted and logged as such apart from the others, and the voice stays paused.
    @Test func aTakeBackThatRunsTheDeviceDryIsItsOwnUnderrun() async throws {
        let mixer = mixerWithVoice()
        // The lateness itself is what is tested, so it is real time, as the paced device's clock is: 100 ms,
        // ten times the period left playing (a loaded machine only makes it later).
        let late = StallingTakeBack(mixer: mixer, stallMicroseconds: 100_000)
        let loop = try startedLoop(rendering: mixer, takeBack: late)
        #expect(await waitUntil { loop.status.frames >= 8_000 })
        #expect(loop.status.takeBackUnderruns == 0 && loop.status.xruns == 0)
        mixer.setPaused(true, for: .voice)
        #expect(await waitUntil { loop.status.takeBackUnderruns == 1 })
        let writtenAfter = loop.status.frames
        #expect(await waitUntil { loop.status.frames >= writtenAfter + 3_200 })
        loop.stop()
        #expect(loop.status.takeBacks == 1)
        #expect(loop.status.xruns == 1, "the take-back's underrun is an xrun too, and the only one")
        var kinds: [AudioLoopEvent.Kind] = []
        while let event = loop.nextEvent() { kinds.append(event.kind) }
        #expect(kinds.filter { $0 == .takeBackUnderrun }.count == 1 && !kinds.contains(.xrun), "\(kinds)")
        let line = AudioLoopEvent(kind: .takeBackUnderrun, code: -EPIPE, at: 0)
            .message(device: PCMDevice(name: "spk"), stream: .playback)
        #expect(line.contains("underrun while taking back the paused voice"), "\(line)")
        // After it only silence: the paused voice did not come back with the recovered device.
        let out = try TestFiles.readSamples(dir.file("out.raw"))
        let stop = try #require(out.indices.first { out[$0] != Self.value($0) })
        #expect(out[(stop + 80)...].allSatisfy { $0 == 0 }, "voice after frame \(stop)")
    }
}

/// Forwards to the mixer, but the first take-back stalls its thread before rendering the replacement.
private final class StallingTakeBack: PlaybackTakeBack, @unchecked Sendable {
    let mixer: Mixer
    let stallMicroseconds: UInt32
    /// Touched only on the playback thread.
    private var stalled = false

    init(mixer: Mixer, stallMicroseconds: UInt32) {
        self.mixer = mixer
        self.stallMicroseconds = stallMicroseconds
    }

    func wake() {}
    func framesToTakeBack(limit: Int) -> Int { mixer.framesToTakeBack(limit: limit) }
    func takeBack(frames: Int, into output: UnsafeMutableBufferPointer<Int16>) {
        if !stalled {
            stalled = true
            usleep(stallMicroseconds)
        }
        mixer.takeBack(frames: frames, into: output)
    }
    func renderedPeriodLost() { mixer.renderedPeriodLost() }
}
