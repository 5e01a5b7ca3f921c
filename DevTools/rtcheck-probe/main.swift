// rtcheck-probe: a tiny program for testing scripts/rtcheck (the LD_PRELOAD realtime checker).
//
//   rtcheck-probe MODE [MILLISECONDS]
//
// Starts a pthread named "rt:test" that renders a `Mixer` (and meters it, and takes back a paused voice
// as the playback loop does) every millisecond for MILLISECONDS (default 400) while the main thread feeds,
// ducks, pauses, resumes and flushes it, as the service's threads would. MODE adds a
// deliberate violation on the realtime thread each period: `clean` (none), `allocate` (an Array),
// `lock` (pthread_mutex_lock), `log` (a line on stderr). Prints the number of periods rendered.
// `bench` instead renders MILLISECONDS of audio (three busy inputs, ramps running) as fast as it can
// on the main thread and prints the cost per second of audio.
import AudioCore
import Glibc
import Synchronization

enum Mode: String {
    case clean, allocate, lock, log, bench
}

/// A line on stderr, straight through write(2) as a log handler would end up doing.
func say(_ text: StaticString) {
    _ = write(2, text.utf8Start, text.utf8CodeUnitCount)
}

func say(_ text: String) {
    var text = text
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

/// Names the calling thread (pthread_setname_np and prctl are not importable from Glibc in Swift);
/// returns whether the kernel now reports that name.
func nameThisThread(_ name: StaticString) -> Bool {
    var fd = open("/proc/thread-self/comm", O_WRONLY)
    guard fd >= 0 else { return false }
    _ = write(fd, name.utf8Start, name.utf8CodeUnitCount)
    close(fd)
    fd = open("/proc/thread-self/comm", O_RDONLY)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var buffer: (UInt64, UInt64) = (0, 0)
    let n = withUnsafeMutableBytes(of: &buffer) { read(fd, $0.baseAddress, 16) }
    return withUnsafeBytes(of: &buffer) { bytes in
        n == name.utf8CodeUnitCount + 1 && (0..<name.utf8CodeUnitCount).allSatisfy { bytes[$0] == name.utf8Start[$0] }
    }
}

final class Probe: @unchecked Sendable {
    let mode: Mode
    let mixer = Mixer()
    let stop = Atomic<Bool>(false)
    let periods = Atomic<Int>(0)
    let sink = Atomic<Int>(0)
    let named = Atomic<Bool>(false)
    let takeBacks = Atomic<Int>(0)
    let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// One 1 ms period at 48 kHz stereo; allocated and freed off the realtime thread.
    let output = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 48 * 2)
    /// 20 ms to take back, as a playback loop's device buffer.
    let replacement = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 960 * 2)

    init(mode: Mode) {
        self.mode = mode
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    /// Not a closure at top level, which would be main-actor isolated and trap off the main thread.
    static let threadEntry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { context in
        Unmanaged<Probe>.fromOpaque(context!).takeUnretainedValue().runRealtimeThread()
        return nil
    }

    func runRealtimeThread() {
        named.store(nameThisThread("rt:test"), ordering: .relaxed)
        var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
        var period = 0
        var meter = LevelMeter(format: mixer.format, windowMilliseconds: 10)
        var follower = EnvelopeFollower(format: mixer.format)
        while !stop.load(ordering: .acquiring) {
            let back = mixer.framesToTakeBack(limit: 960)
            if back > 0 {
                mixer.takeBack(frames: back, into: replacement)
                takeBacks.add(1, ordering: .relaxed)
            }
            mixer.render(into: output)
            meter.process(UnsafeBufferPointer(output))
            follower.process(UnsafeBufferPointer(output))
            sink.store(meter.windows &+ Int(follower.envelope), ordering: .relaxed)
            switch mode {
            case .clean, .bench:
                break
            case .allocate:
                let scratch = [Int](repeating: period, count: 16 + period % 7)
                sink.store(scratch[scratch.count - 1], ordering: .relaxed)
            case .lock:
                pthread_mutex_lock(mutex)
                pthread_mutex_unlock(mutex)
            case .log:
                say("rt:test period\n")
            }
            period += 1
            periods.store(period, ordering: .relaxed)
            nanosleep(&pause, nil)
        }
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 2, let mode = Mode(rawValue: arguments[1]) else {
    say("usage: rtcheck-probe clean|allocate|lock|log [MILLISECONDS]\n")
    exit(64)
}
let milliseconds = arguments.count >= 3 ? Int(arguments[2]) ?? 400 : 400

if mode == .bench {
    let mixer = Mixer()
    let period = 480
    let input = [Int16](repeating: 1_234, count: period * 2)
    var output = [Int16](repeating: 0, count: period * 2)
    let periods = milliseconds / 10
    var start = timespec()
    var end = timespec()
    clock_gettime(CLOCK_MONOTONIC, &start)
    for p in 0..<periods {
        for channel in MixerChannel.allCases { input.withUnsafeBufferPointer { _ = mixer.write($0, to: channel) } }
        if p % 50 == 0 { mixer.setGain(p % 100 == 0 ? 0.1 : 1, frames: 4_800, for: .media) }
        output.withUnsafeMutableBufferPointer { mixer.render(into: $0) }
    }
    clock_gettime(CLOCK_MONOTONIC, &end)
    let ns = Double(end.tv_sec - start.tv_sec) * 1e9 + Double(end.tv_nsec - start.tv_nsec)
    let audioSeconds = Double(periods * period) / 48_000
    print(
        "bench: \(periods) periods of \(period) frames, 48 kHz stereo, 3 inputs: \(Int(ns / audioSeconds / 1_000)) us per second of audio (\(Int(ns / Double(periods))) ns per 10 ms period)"
    )
    exit(0)
}
let probe = Probe(mode: mode)

var thread = pthread_t()
let started = pthread_create(&thread, nil, Probe.threadEntry, Unmanaged.passUnretained(probe).toOpaque())
guard started == 0 else {
    say("rtcheck-probe: pthread_create failed with \(started)\n")
    exit(1)
}

// The control side: voice and media producers, ducking and barge-in, on this (non-realtime) thread.
let voice = [Int16](repeating: 1_000, count: 480 * 2)
let media = [Int16](repeating: -500, count: 480 * 2)
var ducker = Ducker()
var pause = timespec(tv_sec: 0, tv_nsec: 5_000_000)
for step in 0..<(milliseconds / 5) {
    voice.withUnsafeBufferPointer { _ = probe.mixer.write($0, to: .voice) }
    media.withUnsafeBufferPointer { _ = probe.mixer.write($0, to: .media) }
    if step % 20 == 0, let change = ducker.duck() { probe.mixer.apply(change, to: .media) }
    if step % 20 == 10, let change = ducker.release() { probe.mixer.apply(change, to: .media) }
    if step % 15 == 7 { probe.mixer.flush(.voice) }
    if step % 15 == 11 { probe.mixer.setPaused(true, for: .voice) }
    if step % 15 == 13 { probe.mixer.setPaused(false, for: .voice) }
    nanosleep(&pause, nil)
}
probe.stop.store(true, ordering: .releasing)
pthread_join(thread, nil)
print(
    "rt_named=\(probe.named.load(ordering: .relaxed) ? 1 : 0) periods=\(probe.periods.load(ordering: .relaxed)) voice_rendered=\(probe.mixer.framesRendered(.voice)) take_backs=\(probe.takeBacks.load(ordering: .relaxed))"
)
