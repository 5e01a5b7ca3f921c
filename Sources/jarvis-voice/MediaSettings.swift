import Configuration
import Synchronization

/// The `[media]` keys a SIGHUP changes at run time (`dj`, `radio_mode`), shared by the reloader
/// (writer) and the media event forwarder (reader).
final class MediaSettings: Sendable {
    private let values: Mutex<(dj: Bool, radioMode: Bool)>

    init(_ config: MediaConfig) {
        values = Mutex((config.dj, config.radioMode))
    }

    var dj: Bool { values.withLock { $0.dj } }
    var radioMode: Bool { values.withLock { $0.radioMode } }

    func apply(_ config: MediaConfig) {
        values.withLock { $0 = (config.dj, config.radioMode) }
    }
}
