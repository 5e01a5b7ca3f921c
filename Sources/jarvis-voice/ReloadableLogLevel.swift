import Logging
import Synchronization
import Systemd

/// The process-wide log level, changeable at run time (SIGHUP applies `[log] level`): every logger's
/// handler reads it, so a reload affects loggers that already exist.
final class ReloadableLogLevel: Sendable {
    private let raw: Atomic<Int>

    init(_ level: Logger.Level) { raw = Atomic(Self.index(level)) }

    var level: Logger.Level {
        get { Logger.Level.allCases[raw.load(ordering: .relaxed)] }
        set { raw.store(Self.index(newValue), ordering: .relaxed) }
    }

    private static func index(_ level: Logger.Level) -> Int { Logger.Level.allCases.firstIndex(of: level) ?? 2 }

    /// Installs `JournaldLogHandler`s whose level follows this object. Call once, first thing.
    func bootstrap() {
        LoggingSystem.bootstrap { label in ReloadableLevelHandler(inner: JournaldLogHandler(label: label, logLevel: .trace), level: self) }
    }
}

/// A `JournaldLogHandler` whose level is the shared `ReloadableLogLevel` (setting it per logger is ignored).
struct ReloadableLevelHandler: LogHandler {
    var inner: JournaldLogHandler
    let level: ReloadableLogLevel

    var logLevel: Logger.Level {
        get { level.level }
        set {}
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) { inner.log(event: event) }
}
