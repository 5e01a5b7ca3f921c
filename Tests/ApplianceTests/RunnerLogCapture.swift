import Logging
import Synchronization

/// Collects the runner's log lines ("level message [metadata] @N ms").
final class RunnerLogCapture: Sendable {
    let lines = Mutex<[String]>([])

    func logger(label: String = "conversation-test") -> Logger {
        var logger = Logger(label: label) { _ in Handler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    static let origin = ContinuousClock.now

    var all: [String] { lines.withLock { $0 } }

    func contains(_ fragment: String) -> Bool { all.contains { $0.contains(fragment) } }

    struct Handler: LogHandler {
        let capture: RunnerLogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let details = event.metadata.map { metadata in metadata.isEmpty ? "" : " \(metadata)" } ?? ""
            // Milliseconds since the first captured line of the process: shows where a slow test waited.
            let milliseconds = RunnerLogCapture.origin.duration(to: .now) / .milliseconds(1)
            capture.lines.withLock { $0.append("\(event.level) \(event.message)\(details) @\(Int(milliseconds)) ms") }
        }
    }
}
