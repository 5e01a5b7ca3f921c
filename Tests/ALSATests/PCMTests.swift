import ALSA
import ALSATestbed
import Glibc
import TestProcess
import Testing

private func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

private let mono16k = PCMConfiguration(sampleRate: 16_000, channels: 1, periodMicroseconds: 10_000, periods: 4)
/// 100 ms of buffer for the paced tests that must not xrun on a loaded machine.
private let roomy16k = PCMConfiguration(sampleRate: 16_000, channels: 1, periodMicroseconds: 10_000, periods: 10)

/// Reads `frames` frames period by period.
private func capture(_ pcm: PCM, frames: Int) throws(ALSAError) -> [Int16] {
    var out = [Int16](repeating: 0, count: frames * pcm.parameters.channels)
    let period = pcm.parameters.periodSamples
    var chunk = [Int16](repeating: 0, count: period)
    var offset = 0
    while offset < out.count {
        let n = min(period, out.count - offset)
        try chunk.withUnsafeMutableBufferPointer { (b) throws(ALSAError) in
            try pcm.read(into: UnsafeMutableBufferPointer(rebasing: b[0..<n]))
        }
        out.replaceSubrange(offset..<offset + n, with: chunk[0..<n])
        offset += n
    }
    return out
}

/// `capture`/`play` for the reads and writes around a deliberate xrun: a loaded machine may starve the test
/// for longer than the 40 ms buffer there too, and such an xrun is recovered and the call repeated.
private func recovering<T>(_ pcm: PCM, _ call: () throws(ALSAError) -> T) throws(ALSAError) -> T {
    for _ in 0..<5 {
        do { return try call() } catch  where error.kind == .xrun { try pcm.recover(from: error) }
    }
    return try call()
}

private func play(_ pcm: PCM, _ samples: [Int16]) throws(ALSAError) {
    let period = pcm.parameters.periodSamples
    var offset = 0
    while offset < samples.count {
        let n = min(period, samples.count - offset)
        try samples.withUnsafeBufferPointer { (all) throws(ALSAError) in
            try pcm.write(UnsafeBufferPointer(rebasing: all[offset..<offset + n]))
        }
        offset += n
    }
}

@Suite(.serialized) struct PCMTests {
    let dir = TemporaryDirectory()
    var config: String { dir.file("asound.conf") }

    @Test func fileCaptureIsByteExact() throws {
        let input = testNoise(count: 16_000)
        try TestFiles.write(samples: input, to: dir.file("in.raw"))
        try TestPCMConfig.write([.file(name: "cap", infile: dir.file("in.raw"), outfile: nil)], to: config)
        let pcm = try PCM(device: PCMDevice(name: "cap", configFile: config), stream: .capture, configuration: mono16k)
        #expect(pcm.parameters.periodFrames == 160)
        #expect(try capture(pcm, frames: 16_000) == input)
    }

    @Test func filePlaybackIsByteExact() throws {
        let input = testNoise(count: 8_000, seed: 7)
        try TestPCMConfig.write([.file(name: "play", infile: nil, outfile: dir.file("out.raw"))], to: config)
        do {
            let pcm = try PCM(device: PCMDevice(name: "play", configFile: config), stream: .playback, configuration: mono16k)
            try play(pcm, input)
        }
        #expect(try TestFiles.readSamples(dir.file("out.raw")) == input)
    }

    @Test func captureToPlaybackRoundTripIsSampleExact() throws {
        let stereo = PCMConfiguration(sampleRate: 48_000, channels: 2, periodMicroseconds: 10_000, periods: 4)
        let input = testNoise(count: 48_000, seed: 3)  // 0.5 s stereo
        try TestFiles.write(samples: input, to: dir.file("in.raw"))
        try TestPCMConfig.write(
            [
                .file(name: "cap", infile: dir.file("in.raw"), outfile: nil),
                .file(name: "play", infile: nil, outfile: dir.file("out.raw"))
            ], to: config)
        do {
            let cap = try PCM(device: PCMDevice(name: "cap", configFile: config), stream: .capture, configuration: stereo)
            let out = try PCM(device: PCMDevice(name: "play", configFile: config), stream: .playback, configuration: stereo)
            var period = [Int16](repeating: 0, count: cap.parameters.periodSamples)
            for _ in 0..<(input.count / period.count) {
                try period.withUnsafeMutableBufferPointer { try cap.read(into: $0) }
                try period.withUnsafeBufferPointer { try out.write($0) }
            }
        }
        #expect(try TestFiles.readSamples(dir.file("out.raw")) == input)
    }

    @Test func pacedCaptureTakesWallClockTimeAndIsExact() throws {
        let input = testNoise(count: 6_400, seed: 11)  // 0.4 s
        try TestFiles.write(samples: input, to: dir.file("in.raw"))
        try TestPCMConfig.write([.paced(name: "cap", PacedPCMOptions(infile: dir.file("in.raw")))], to: config)
        let pcm = try PCM(device: PCMDevice(name: "cap", configFile: config), stream: .capture, configuration: roomy16k)
        let t0 = monotonicSeconds()
        let got = try capture(pcm, frames: 6_400)
        let elapsed = monotonicSeconds() - t0
        #expect(got == input)
        // Pacing is the lower bound; the upper one is loose because suites run in parallel on 2 cores.
        #expect(elapsed > 0.38 && elapsed < 1.5, "0.4 s of capture took \(elapsed) s")
        let more = try capture(pcm, frames: 160)
        #expect(more.allSatisfy { $0 == 0 }, "silence after the end of infile")
        #expect(try pcm.delay() >= 0)
    }

    @Test func pacedCaptureFollowsFramesAppendedToItsInfile() throws {
        let first = testNoise(count: 1_600, seed: 3)
        let later = testNoise(count: 1_600, seed: 4)
        try TestFiles.write(samples: first, to: dir.file("in.raw"))
        try TestPCMConfig.write([.paced(name: "cap", PacedPCMOptions(infile: dir.file("in.raw"), followInfile: true))], to: config)
        let pcm = try PCM(device: PCMDevice(name: "cap", configFile: config), stream: .capture, configuration: roomy16k)
        #expect(try capture(pcm, frames: 1_600) == first)
        #expect(try capture(pcm, frames: 320).allSatisfy { $0 == 0 }, "silence while nothing was appended")
        // Appended in two writes, the first ending in the middle of a frame.
        let bytes = later.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
        let fd = open(dir.file("in.raw"), O_WRONLY | O_APPEND)
        #expect(fd >= 0)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, 1_001) }
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + 1_001, bytes.count - 1_001) }
        close(fd)
        let got = try capture(pcm, frames: 3_200)
        let start = try #require(got.firstIndex { $0 != 0 })
        #expect(Array(got[start..<(start + later.count)]) == later)
    }

    @Test func pacedPlaybackPacesReportsDelayAndWritesPlayedFrames() throws {
        let input = testNoise(count: 6_400, seed: 5)
        try TestPCMConfig.write([.paced(name: "play", PacedPCMOptions(outfile: dir.file("out.raw")))], to: config)
        let pcm = try PCM(device: PCMDevice(name: "play", configFile: config), stream: .playback, configuration: roomy16k)
        let buffer = pcm.parameters.bufferFrames
        let t0 = monotonicSeconds()
        try play(pcm, input)
        let delay = try pcm.delay()
        try pcm.drain()
        let elapsed = monotonicSeconds() - t0
        // The buffer fills before the start; afterwards each write waits for a period to play.
        #expect(delay > 0 && delay <= buffer, "delay \(delay) frames, buffer \(buffer)")
        // Pacing is the lower bound; the upper one is loose because suites run in parallel on 2 cores.
        #expect(elapsed > 0.38 && elapsed < 1.5, "0.4 s of playback took \(elapsed) s")
        #expect(try TestFiles.readSamples(dir.file("out.raw")) == input)
    }

    @Test func pacedPlaybackUnderrunsAndRecovers() throws {
        try TestPCMConfig.write([.paced(name: "play", PacedPCMOptions())], to: config)
        let pcm = try PCM(device: PCMDevice(name: "play", configFile: config), stream: .playback, configuration: mono16k)
        let silence = [Int16](repeating: 0, count: pcm.parameters.bufferFrames)
        try recovering(pcm) { () throws(ALSAError) in try play(pcm, silence) }  // fills the buffer: starts
        #expect(pcm.state == .running)
        usleep(80_000)  // 40 ms of buffer runs dry
        var caught: ALSAError?
        do { try play(pcm, Array(silence[0..<160])) } catch { caught = error }
        #expect(caught?.kind == .xrun)
        #expect(pcm.state == .xrun)
        if let caught { try pcm.recover(from: caught) }
        try recovering(pcm) { () throws(ALSAError) in try play(pcm, silence) }
        #expect(pcm.state == .running)
    }

    @Test func pacedCaptureOverrunRecovers() throws {
        try TestPCMConfig.write([.paced(name: "cap", PacedPCMOptions())], to: config)
        let pcm = try PCM(device: PCMDevice(name: "cap", configFile: config), stream: .capture, configuration: mono16k)
        _ = try recovering(pcm) { () throws(ALSAError) in try capture(pcm, frames: 160) }
        usleep(80_000)
        var caught: ALSAError?
        do { _ = try capture(pcm, frames: 160) } catch { caught = error }
        #expect(caught?.kind == .xrun)
        if let caught { try pcm.recover(from: caught) }
        #expect(try recovering(pcm) { () throws(ALSAError) in try capture(pcm, frames: 320) }.count == 320)
    }

    @Test func pacedCaptureClockDrifts() throws {
        // A capture clock 10% fast captures 10% more frames in the same wall-clock time.
        try TestPCMConfig.write(
            [
                .paced(name: "fast", PacedPCMOptions(driftPPM: 100_000)),
                .paced(name: "exact", PacedPCMOptions())
            ], to: config)
        let deep = PCMConfiguration(sampleRate: 16_000, channels: 1, periodMicroseconds: 10_000, periods: 40)
        let fast = try PCM(device: PCMDevice(name: "fast", configFile: config), stream: .capture, configuration: deep)
        let exact = try PCM(device: PCMDevice(name: "exact", configFile: config), stream: .capture, configuration: deep)
        _ = try capture(fast, frames: 160)
        _ = try capture(exact, frames: 160)
        let fast0 = try fast.delay(), exact0 = try exact.delay()
        usleep(200_000)
        let fast1 = try fast.delay(), exact1 = try exact.delay()
        let ratio = Double(fast1 - fast0) / Double(exact1 - exact0)
        #expect(abs(ratio - 1.1) < 0.02, "ratio \(ratio)")
    }

    @Test func failFileUnplugsTheDevice() throws {
        let unplug = dir.file("unplugged")
        try TestPCMConfig.write([.paced(name: "cap", PacedPCMOptions(failFile: unplug))], to: config)
        let pcm = try PCM(device: PCMDevice(name: "cap", configFile: config), stream: .capture, configuration: mono16k)
        _ = try capture(pcm, frames: 160)
        try TestFiles.write([], to: unplug)
        var caught: ALSAError?
        do { _ = try capture(pcm, frames: 160) } catch { caught = error }
        #expect(caught?.kind == .disconnected)
        #expect(caught.map { "\($0)" } == "snd_pcm_readi(\"cap\", capture) failed: No such device")
        if let caught { #expect(throws: ALSAError.self) { try pcm.recover(from: caught) } }

        var openError: ALSAError?
        do { _ = try PCM(device: PCMDevice(name: "cap", configFile: config), stream: .capture, configuration: mono16k) } catch { openError = error }
        #expect(openError?.kind == .disconnected)
        TestFiles.remove(unplug)
        _ = try PCM(device: PCMDevice(name: "cap", configFile: config), stream: .capture, configuration: mono16k)
    }

    @Test func errorsNameTheCallAndTheDevice() {
        var caught: ALSAError?
        do { _ = try PCM(device: PCMDevice(name: "hw:7,0"), stream: .capture, configuration: mono16k) } catch { caught = error }
        #expect(caught?.kind == .disconnected)
        #expect(caught.map { "\($0)" } == "snd_pcm_open(\"hw:7,0\", capture) failed: No such file or directory")
    }

    @Test func listsDeviceHints() throws {
        let hints = try DeviceHint.pcms()
        #expect(hints.contains { $0.name == "null" })
    }
}
