import Glibc
import Synchronization

/// Interleaved S16LE written into a snapserver pipe source at wall-clock pace, from a thread of its own
/// (the writes and the sleeps between them block). A little ahead of the clock, so the server, which
/// reads the FIFO at real-time pace, never finds it empty and sends silence. When the server goes away
/// (a restart) the FIFO is opened again and the feed goes on. Stopped by `stop()` or on release.
public final class SnapFeed: Sendable {
    /// The next block: `frames` frames starting at frame `firstFrame` of the feed, or nil to end it.
    public typealias Generator = @Sendable (_ firstFrame: Int, _ frames: Int) -> [Int16]?

    /// Frames written per write (10 ms), and how far the feed runs ahead of the clock (200 ms, a stall of the
    /// feeding thread on a loaded machine is not a gap in the stream; the pipe holds 340 ms).
    static let blockFrames = 480
    static let leadFrames = 9_600

    private let writer: Writer
    private let thread: Mutex<pthread_t?>

    static func start(path: String, channels: Int, sampleRate: Int, generator: @escaping Generator) throws -> SnapFeed {
        try SnapFeed(Writer(path: path, channels: channels, sampleRate: sampleRate, generator: generator))
    }

    private init(_ writer: Writer) throws {
        self.writer = writer
        var thread = pthread_t()
        let context = Unmanaged.passRetained(writer).toOpaque()
        let created = pthread_create(
            &thread, nil,
            { context in
                Unmanaged<Writer>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            }, context)
        guard created == 0 else {
            Unmanaged<Writer>.fromOpaque(context).release()
            throw SnapFeedError(description: "pthread_create failed: \(String(cString: strerror(created)))")
        }
        self.thread = Mutex(thread)
    }

    deinit {
        thread.withLock {
            guard let thread = $0 else { return }
            while !writer.done.load(ordering: .relaxed) {
                writer.requestStop()
                usleep(5_000)
            }
            pthread_join(thread, nil)
        }
    }

    /// Frames written into the FIFO so far.
    public var framesWritten: Int { writer.written.load(ordering: .relaxed) }

    /// Whether the feed is over: the generator ended and its last block is written, or it was stopped.
    public var isDone: Bool { writer.done.load(ordering: .relaxed) }

    /// Waits up to `timeout` for the generator to end and its blocks to be written; whether they were.
    public func finish(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !isDone, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        return isDone
    }

    /// Ends the feed (the FIFO is closed: the server logs end of file and waits for a writer again).
    public func stop() async {
        while !isDone {
            writer.requestStop()
            try? await Task.sleep(for: .milliseconds(5))
        }
        thread.withLock {
            if let thread = $0 { pthread_join(thread, nil) }
            $0 = nil
        }
    }
}

public struct SnapFeedError: Error, CustomStringConvertible {
    public var description: String
}

/// The feed's thread and what it shares with the test.
private final class Writer: Sendable {
    let path: String
    let channels: Int
    let sampleRate: Int
    let generator: SnapFeed.Generator
    let stopRequested = Atomic(false)
    let done = Atomic(false)
    let written = Atomic(0)

    init(path: String, channels: Int, sampleRate: Int, generator: @escaping SnapFeed.Generator) {
        self.path = path
        self.channels = channels
        self.sampleRate = sampleRate
        self.generator = generator
    }

    private var stopping: Bool { stopRequested.load(ordering: .relaxed) }

    func run() {
        // A write to a FIFO whose reader is gone raises SIGPIPE: blocked here, it comes back as EPIPE.
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
        defer { done.store(true, ordering: .relaxed) }
        var fd = openFIFO()
        defer { if fd >= 0 { close(fd) } }
        var start = now()
        var frames = 0
        while fd >= 0, !stopping, let block = generator(frames, SnapFeed.blockFrames) {
            let due = start + Double(frames - SnapFeed.leadFrames) / Double(sampleRate)
            sleep(until: due)
            while !writeAll(block, to: fd) {
                // The reader went away (the server stopped): wait for the next one, keep the pace from here.
                close(fd)
                var pending = siginfo_t()
                var none = timespec()
                _ = sigtimedwait(&pipeSignal, &pending, &none)
                fd = openFIFO()
                guard fd >= 0 else { return }
                start = now() - Double(frames) / Double(sampleRate)
            }
            frames += block.count / channels
            written.store(frames, ordering: .relaxed)
        }
    }

    /// Opens the FIFO for writing, waiting in `open` for the server to open it for reading; -1 when
    /// stopped first. (A non-blocking open would have to catch the moment: a server with no writer reads
    /// end of file, closes the FIFO and opens it again 100 ms later.) `stop` wakes a waiting open.
    private func openFIFO() -> Int32 {
        while !stopping {
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            if fd >= 0 {
                guard !stopping else {
                    close(fd)
                    return -1
                }
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                return fd
            }
            if errno != EINTR { usleep(10_000) }  // not made yet
        }
        return -1
    }

    /// Asks the thread to end, and wakes an `open` waiting for a reader by being one for a moment.
    func requestStop() {
        stopRequested.store(true, ordering: .relaxed)
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        if fd >= 0 { close(fd) }
    }

    /// Writes all of `block`, waiting while the FIFO is full; false when the reader is gone.
    private func writeAll(_ block: [Int16], to fd: Int32) -> Bool {
        let bytes = block.map { $0.littleEndian }
        return bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n > 0 {
                    offset += n
                } else if n < 0, errno == EAGAIN || errno == EINTR {
                    if stopping { return true }
                    usleep(2_000)
                } else {
                    return false
                }
            }
            return true
        }
    }

    private func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private func sleep(until due: Double) {
        while !stopping {
            let left = due - now()
            guard left > 0 else { return }
            usleep(UInt32(min(left, 0.02) * 1e6))
        }
    }
}
