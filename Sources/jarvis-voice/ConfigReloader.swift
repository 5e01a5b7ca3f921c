import Configuration
import Logging
import ServiceLifecycle
import Systemd
import UnixSignals

/// SIGHUP: re-reads and validates the file. A bad file keeps the running configuration (each
/// problem is logged as an error); a good one applies the keys in `ReloadPlan.liveKeys` at once and
/// names every other changed key as needing a restart (until the service restarts, later reloads
/// keep naming them).
struct ConfigReloader: Service {
    let path: String
    let running: JarvisVoiceConfig
    let logLevel: ReloadableLogLevel
    let media: MediaSettings
    let notify: SDNotify
    let logger: Logger

    func run() async throws {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        await cancelWhenGracefulShutdown {
            var effective = running
            for await _ in hangups { reload(&effective) }
        }
    }

    /// `effective`: what the service runs with (the start configuration plus applied reloads).
    func reload(_ effective: inout JarvisVoiceConfig) {
        _ = try? notify.reloading()
        defer { _ = try? notify.ready() }
        logger.notice("SIGHUP: reloading \(path)")
        let config: JarvisVoiceConfig
        do {
            let loaded = try ConfigLoader.loadReportingRenames(path: path)
            config = loaded.config
            for warning in loaded.warnings { logger.warning("\(warning.formatted(path: path, label: "warning"))") }
        } catch {
            for line in error.lines { logger.error("\(line)") }
            logger.error("reload failed: keeping the running configuration")
            return
        }
        let plan = ReloadPlan(running: effective, new: config)
        media.apply(config.media)
        effective.log = config.log
        effective.media.dj = config.media.dj
        effective.media.radioMode = config.media.radioMode
        effective.media.loudnessTarget = config.media.loudnessTarget
        // What was applied is said whatever the old and new levels: at notice, or at the more verbose of
        // the two when both are quieter than notice, and before a quieter level takes effect.
        let summaryLevel = max(.notice, min(logLevel.level, config.log.level))
        let quieter = config.log.level > logLevel.level
        if !quieter { logLevel.level = config.log.level }
        logger.log(level: summaryLevel, "reloaded \(path): \(plan.summary)")
        if quieter { logLevel.level = config.log.level }
    }
}
