import ALSA
import ALSATestbed
import AudioEngine
import Basics
import Glibc
import Synchronization
import TestProcess
import Testing

/// Preallocated storage a processor fills on the realtime thread; read after `stop()` (join).
final class Recorder: @unchecked Sendable {
    let mic: UnsafeMutableBufferPointer<Int16>
    let reference: UnsafeMutableBufferPointer<Int16>
    private(set) var count = 0

    init(capacity: Int) {
        mic = .zeroed(capacity: capacity)
        reference = .zeroed(capacity: capacity)
    }

    deinit {
        mic.deallocate()
        reference.deallocate()
    }

    func record(_ period: CapturedPeriod) {
        let n = min(period.mic.count, mic.count - count)
        guard n > 0 else { return }
        for i in 0..<n {
            mic[count + i] = period.mic[i]
            reference[count + i] = period.reference?[i] ?? 0
        }
        count += n
    }
}

/// Plays a preallocated signal in a loop.
final class SignalSource: @unchecked Sendable {
    let signal: [Int16]
    private var position = 0
    /// One render stalls 80 ms (past a 40–60 ms playback buffer) at this period...
    var stallOnceAtPeriod: Int?
    /// ...or at the first period at which this holds (called on the playback thread).
    var stallOnceWhen: (@Sendable () -> Bool)?
    private var periods = 0
    private var stalled = false

    init(_ signal: [Int16]) { self.signal = signal }

    func render(_ period: PlaybackPeriod) {
        periods += 1
        if !stalled, periods == stallOnceAtPeriod || stallOnceWhen?() == true {
            stalled = true
            usleep(80_000)
        }
        let channels = period.parameters.channels
        for f in 0..<period.parameters.periodFrames {
            let s = signal[position]
            position = (position + 1) % signal.count
            for c in 0..<channels { period.buffer[f * channels + c] = s }
        }
    }
}

private func drain(_ next: () -> AudioLoopEvent?) -> [AudioLoopEvent.Kind] {
    var kinds: [AudioLoopEvent.Kind] = []
    while let e = next() { kinds.append(e.kind) }
    return kinds
}

@Suite(.serialized) struct LoopTests {
    let dir = TemporaryDirectory()
    var config: String { dir.file("asound.conf") }

    @Test func realtimeThreadRunsNamedAndJoins() throws {
        let ran = Atomic<Bool>(false)
        let name = Mutex<String>("")
        let thread = try RealtimeThread(name: "rt:test", fifoPriority: 10) {
            ran.store(true, ordering: .relaxed)
            let comm = (try? TestFiles.read("/proc/thread-self/comm")) ?? []
            let n = String(decoding: comm.filter { $0 != 10 }, as: UTF8.self)
            name.withLock { $0 = n }
        }
        thread.join()
        let didRun = ran.load(ordering: .relaxed)
        #expect(didRun)
        #expect(name.withLock { $0 } == "rt:test")
        // Either realtime was granted or the notice says why not.
        if let notice = thread.schedulingNotice { #expect(notice.contains("SCHED_FIFO")) }
    }

    @Test func captureLoopDeliversChannelsInOrder() async throws {
        // 6 channels like a ReSpeaker: ch0 = mic, ch5 = hardware reference.
        let frames = 3_200
        var interleaved = [Int16](repeating: 0, count: frames * 6)
        for f in 0..<frames { for c in 0..<6 { interleaved[f * 6 + c] = Int16(truncatingIfNeeded: f * 10 + c) } }
        try TestFiles.write(samples: interleaved, to: dir.file("in.raw"))
        try TestPCMConfig.write([.paced(name: "mic", PacedPCMOptions(infile: dir.file("in.raw")))], to: config)
        let recorder = Recorder(capacity: frames)
        let loop = CaptureLoop(
            configuration: CaptureLoopConfiguration(
                device: PCMDevice(name: "mic", configFile: config),
                // A deep buffer: without SCHED_FIFO on a loaded machine a 40 ms one overruns.
                pcm: PCMConfiguration(sampleRate: 16_000, channels: 6, periodMicroseconds: 10_000, periods: 40),
                micChannel: 0, referenceChannel: 5, fifoPriority: nil)
        ) { recorder.record($0) }
        try loop.start()
        #expect(await waitUntil { loop.status.frames >= 2_400 })
        loop.stop()
        #expect(recorder.count >= 2_400)
        let n = recorder.count
        #expect((0..<n).allSatisfy { recorder.mic[$0] == Int16(truncatingIfNeeded: $0 * 10) })
        #expect((0..<n).allSatisfy { recorder.reference[$0] == Int16(truncatingIfNeeded: $0 * 10 + 5) })
        #expect(loop.status.frames == n || recorder.count == 3_200)
        #expect(loop.status.lastPeriodNanoseconds > 0)
        #expect(drain(loop.nextEvent) == [.opened])
        #expect(!loop.status.isRunning)
    }

    @Test func playbackLoopRecoversAnInducedUnderrun() async throws {
        try TestPCMConfig.write([.paced(name: "spk", PacedPCMOptions(outfile: dir.file("out.raw")))], to: config)
        let source = SignalSource(testNoise(count: 1_600))
        source.stallOnceAtPeriod = 10
        let loop = PlaybackLoop(
            configuration: PlaybackLoopConfiguration(
                device: PCMDevice(name: "spk", configFile: config), pcm: mono16k, fifoPriority: nil)
        ) { source.render($0) }
        let started = ContinuousClock.now
        try loop.start()
        // The stall comes at period 10 (100 ms in); run on well past it.
        #expect(await waitUntil { loop.status.xruns >= 1 && loop.status.frames >= 4_000 })
        let framesAtStop = loop.status.frames
        let elapsed = ContinuousClock.now - started
        loop.stop()
        #expect(loop.status.xruns >= 1)
        #expect(drain(loop.nextEvent).contains(.xrun))
        // Paced: playing went on after the recovery at the device's pace, never faster than the
        // wall clock allows (elapsed time plus the 40 ms buffer).
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        #expect(
            framesAtStop >= 4_000 && Double(framesAtStop) <= (seconds + 0.06) * 16_000,
            "\(framesAtStop) frames in \(elapsed)")
    }

    @Test func captureLoopReopensAfterTheDeviceVanishes() async throws {
        let unplug = dir.file("unplugged")
        try TestPCMConfig.write([.paced(name: "mic", PacedPCMOptions(failFile: unplug))], to: config)
        let loop = CaptureLoop(
            configuration: CaptureLoopConfiguration(
                device: PCMDevice(name: "mic", configFile: config), pcm: mono16k, fifoPriority: nil,
                backoff: Backoff(initial: .milliseconds(20), maximum: .milliseconds(40)))
        ) { _ in }
        try loop.start()
        #expect(await waitUntil { loop.status.isRunning && loop.status.frames > 0 })
        try TestFiles.write([], to: unplug)
        #expect(await waitUntil { !loop.status.isRunning && loop.status.openFailures >= 1 })
        #expect(!loop.status.isRunning)
        let framesWhileUnplugged = loop.status.frames
        #expect(loop.status.openFailures >= 1)
        TestFiles.remove(unplug)
        #expect(await waitUntil { loop.status.reopens >= 1 && loop.status.frames > framesWhileUnplugged })
        loop.stop()
        #expect(loop.status.reopens == 1)
        #expect(loop.status.frames > framesWhileUnplugged)
        var events: [AudioLoopEvent] = []
        while let e = loop.nextEvent() { events.append(e) }
        // One line when it goes (saying what the loop waits for), one when it is back: the failed
        // reopens in between are counted, not logged.
        #expect(events.map(\.kind) == [.opened, .disconnected, .opened])
        let device = loop.configuration.device
        let lines = events.map { $0.message(device: device, stream: .capture) }
        #expect(
            lines.dropFirst().elementsEqual([
                "capture device mic lost: it is not there (unplugged, or not the name `jarvis-voice devices` lists); waiting for it to come back "
                    + "(retrying every 40 ms at most; the next line says when it is open)",
                "capture device mic reopened: 16000 Hz, 1 ch, period 160 frames, buffer 640 frames"
            ]), "\(lines)")
    }

    @Test func aDeviceAbsentAtStartIsReportedOnceNotAtEveryRetry() async throws {
        let unplug = dir.file("absent")
        try TestFiles.write([], to: unplug)
        try TestPCMConfig.write([.paced(name: "mic", PacedPCMOptions(failFile: unplug))], to: config)
        let loop = CaptureLoop(
            configuration: CaptureLoopConfiguration(
                device: PCMDevice(name: "mic", configFile: config), pcm: mono16k, fifoPriority: nil,
                backoff: Backoff(initial: .milliseconds(10), maximum: .milliseconds(20)))
        ) { _ in }
        try loop.start()
        #expect(await waitUntil { loop.status.openFailures >= 8 })
        TestFiles.remove(unplug)
        #expect(await waitUntil { loop.status.isRunning && loop.status.frames > 0 })
        loop.stop()
        var events: [AudioLoopEvent] = []
        while let e = loop.nextEvent() { events.append(e) }
        #expect(events.map(\.kind) == [.openFailed, .opened])
        let lines = events.map { $0.message(device: loop.configuration.device, stream: .capture) }
        #expect(
            lines.first == "capture device mic unavailable: it is not there (unplugged, or not the name `jarvis-voice devices` "
                + "lists); waiting for it (retrying every 20 ms at most; the next line says when it is open)")
        #expect(
            events.first?.libraryDetail(device: loop.configuration.device, stream: .capture)
                == "snd_pcm_open_lconf(\"mic\", capture) failed: No such device", "the library's words, for a debug line")
    }

    @Test func playbackLoopReopensAfterTheDeviceVanishes() async throws {
        let unplug = dir.file("unplugged")
        try TestPCMConfig.write([.paced(name: "spk", PacedPCMOptions(failFile: unplug))], to: config)
        let source = SignalSource(testNoise(count: 1_600))
        let loop = PlaybackLoop(
            configuration: PlaybackLoopConfiguration(
                device: PCMDevice(name: "spk", configFile: config), pcm: mono16k, fifoPriority: nil,
                backoff: Backoff(initial: .milliseconds(20), maximum: .milliseconds(40)))
        ) { source.render($0) }
        try loop.start()
        #expect(await waitUntil { loop.status.isRunning && loop.status.frames > 0 })
        try TestFiles.write([], to: unplug)
        #expect(await waitUntil { !loop.status.isRunning })
        let framesWhileUnplugged = loop.status.frames
        TestFiles.remove(unplug)
        #expect(await waitUntil { loop.status.reopens >= 1 && loop.status.frames > framesWhileUnplugged })
        loop.stop()
        #expect(loop.status.reopens == 1)
        #expect(loop.status.frames > framesWhileUnplugged)
        let kinds = drain(loop.nextEvent)
        #expect(kinds.contains(.disconnected))
        #expect(kinds.last == .opened)
    }
}
