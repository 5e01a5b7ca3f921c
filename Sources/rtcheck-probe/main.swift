// rtcheck-probe: a tiny program for testing scripts/rtcheck (the LD_PRELOAD realtime checker).
//
//   rtcheck-probe MODE [MILLISECONDS]
//
// Starts a pthread named "rt:test" that renders a `Mixer` every millisecond for MILLISECONDS (default
// 400) while the main thread feeds, ducks and flushes it, as the service's threads would. MODE adds a
// deliberate violation on the realtime thread each period: `clean` (none), `allocate` (an Array),
// `lock` (pthread_mutex_lock), `log` (a line on stderr). Prints the number of periods rendered.
import AudioCore
import Glibc
import Synchronization

enum Mode: String {
    case clean, allocate, lock, log
}

/// A line on stderr, straight through write(2) as a log handler would end up doing.
func say(_ text: StaticString) {
    _ = write(2, text.utf8Start, text.utf8CodeUnitCount)
}

func say(_ text: String) {
    var text = text
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

/// Names the calling thread (pthread_setname_np and prctl are not importable from Glibc in Swift).
func nameThisThread(_ name: StaticString) {
    let fd = open("/proc/thread-self/comm", O_WRONLY)
    guard fd >= 0 else { return }
    _ = write(fd, name.utf8Start, name.utf8CodeUnitCount)
    close(fd)
}

final class Probe: @unchecked Sendable {
    let mode: Mode
    let mixer = Mixer()
    let stop = Atomic<Bool>(false)
    let periods = Atomic<Int>(0)
    let sink = Atomic<Int>(0)
    let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// One 1 ms period at 48 kHz stereo; allocated and freed off the realtime thread.
    let output = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 48 * 2)

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
        nameThisThread("rt:test")
        var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
        var period = 0
        while !stop.load(ordering: .acquiring) {
            mixer.render(into: output)
            switch mode {
            case .clean:
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
    nanosleep(&pause, nil)
}
probe.stop.store(true, ordering: .releasing)
pthread_join(thread, nil)
print("periods=\(probe.periods.load(ordering: .relaxed)) voice_rendered=\(probe.mixer.framesRendered(.voice))")
