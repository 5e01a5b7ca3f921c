import Glibc
import TestSupport

/// Writes a signal into a named pipe as a live source would: in 20 ms chunks, on a real-time schedule.
final class PacedFifoWriter {
    private var fd: Int32 = -1

    /// Opens the pipe once it exists; false until then. Read-write, so it never lacks a writer: snapserver
    /// closes and reopens a pipe that reads end-of-file, and a write-only end opened in between breaks.
    func open(_ path: String) -> Bool {
        if fd < 0 { fd = Glibc.open(path, O_RDWR | O_CLOEXEC) }
        return fd >= 0
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Feeds `seconds` of `signal`; returns the CLOCK_MONOTONIC ns at which its frame 0 was written.
    func feed(_ signal: ToneBurstSignal, seconds: Int) async throws -> Double {
        defer {
            close(fd)
            fd = -1
        }
        let chunk = signal.sampleRate / 50
        let start = monotonicNanoseconds()
        var frame = 0
        while frame < signal.sampleRate * seconds {
            let bytes = signal.bytes(from: frame, count: chunk)
            let done = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard done == bytes.count else { throw PacedFifoError(errno: errno) }
            frame += chunk
            let due = start + Double(frame) / Double(signal.sampleRate) * 1e9
            let wait = due - monotonicNanoseconds()
            if wait > 0 { try await Task.sleep(for: .nanoseconds(Int64(wait))) }
        }
        return start
    }

    private func monotonicNanoseconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) * 1e9 + Double(ts.tv_nsec)
    }
}

struct PacedFifoError: Error, CustomStringConvertible {
    var errno: Int32
    var description: String { "writing the pipe failed: \(String(cString: strerror(errno)))" }
}
