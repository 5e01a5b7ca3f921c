import Logging
import Synchronization

/// Collects every log line (message and metadata) so tests can check that secrets never appear.
final class LogCapture: Sendable {
    let lines = Mutex<[String]>([])

    func logger() -> Logger {
        var logger = Logger(label: "jarvis-test") { _ in Handler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    var all: [String] { lines.withLock { $0 } }

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
            capture.lines.withLock { $0.append("\(event.level) \(event.message) \(merged)") }
        }
    }
}
