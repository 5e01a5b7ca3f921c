import Logging
import Synchronization

/// Collects the runner's log lines ("level message").
final class RunnerLogCapture: Sendable {
    let lines = Mutex<[String]>([])

    func logger(label: String = "conversation-test") -> Logger {
        var logger = Logger(label: label) { _ in Handler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

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
            capture.lines.withLock { $0.append("\(event.level) \(event.message)") }
        }
    }
}
