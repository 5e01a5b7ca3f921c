import AudioCore
import Configuration
import Synchronization

/// The `[media]` keys a SIGHUP changes at run time (`dj`, `radio_mode`, `loudness_target`), shared by the
/// reloader (writer) and their readers: the media event forwarder, and the media and voice levelers
/// (`loudnessTarget`, read per buffer).
final class MediaSettings: Sendable {
    private let values: Mutex<(dj: Bool, radioMode: Bool)>
    let loudnessTarget: LoudnessTarget

    init(_ config: MediaConfig) {
        values = Mutex((config.dj, config.radioMode))
        loudnessTarget = LoudnessTarget(config)
    }

    var dj: Bool { values.withLock { $0.dj } }
    var radioMode: Bool { values.withLock { $0.radioMode } }

    func apply(_ config: MediaConfig) {
        values.withLock { $0 = (config.dj, config.radioMode) }
        loudnessTarget.lufs = config.leveling
    }
}
