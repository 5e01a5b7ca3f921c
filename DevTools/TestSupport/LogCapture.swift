import Logging
import Synchronization

/// Collects every line a `Logger` made from it writes, at every level, as
/// "level message [metadata] @N ms": tests look for what the service said (`contains`) and check that
/// secrets never appear (`all`). The one in-process log capture of the tests (a child process's log
/// file is followed with `TestProcess.AppendedLines`).
public final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])
    /// Milliseconds are counted from the first capture of the process: they show where a slow test waited.
    private static let origin = ContinuousClock.now

    public init() {}

    public func logger(label: String = "test") -> Logger {
        var logger = Logger(label: label) { _ in Handler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    public var all: [String] { lines.withLock { $0 } }

    public func contains(_ fragment: String) -> Bool { all.contains { $0.contains(fragment) } }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            let details = merged.isEmpty ? "" : " \(merged)"
            let milliseconds = LogCapture.origin.duration(to: .now) / .milliseconds(1)
            capture.lines.withLock { $0.append("\(event.level) \(event.message)\(details) @\(Int(milliseconds)) ms") }
        }
    }
}
