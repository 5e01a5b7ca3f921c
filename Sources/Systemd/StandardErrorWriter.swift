import Synchronization

/// Writes whole lines to stderr, one write per line, serialised so lines never interleave.
/// A stuck reader (journald, a full pipe) costs at most `budgetMilliseconds` per line; lines that
/// cannot be written in time are dropped and counted, and the count is reported on the next line.
public final class StandardErrorWriter: Sendable {
    public static let shared = StandardErrorWriter(fd: SystemdCalls.standardErrorFD)

    private struct State {
        var mode = SystemdCalls.WriteMode.unknown
        var dropped = 0
    }

    private let fd: Int32
    private let budgetMilliseconds: Int32
    private let state = Mutex(State())

    init(fd: Int32, budgetMilliseconds: Int32 = 100) {
        self.fd = fd
        self.budgetMilliseconds = budgetMilliseconds
    }

    /// Writes `line` plus a newline.
    public func write(line: String) {
        state.withLock { state in
            if state.dropped > 0 {
                let notice = "<4>jarvis-voice: \(state.dropped) log lines dropped (stderr blocked)\n"
                guard emit(notice, &state) else {
                    state.dropped += 1
                    return
                }
                state.dropped = 0
            }
            if !emit(line + "\n", &state) { state.dropped += 1 }
        }
    }

    /// Lines dropped since the last successful write.
    public var droppedLines: Int { state.withLock { $0.dropped } }

    private func emit(_ text: String, _ state: inout State) -> Bool {
        var text = text
        return text.withUTF8 { utf8 in
            SystemdCalls.writeBounded(fd: fd, bytes: UnsafeRawBufferPointer(utf8), mode: &state.mode, budgetMilliseconds: budgetMilliseconds)
        }
    }
}
