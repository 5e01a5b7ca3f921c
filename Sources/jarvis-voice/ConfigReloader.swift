import Configuration
import Logging
import ServiceLifecycle
import Systemd
import UnixSignals

/// SIGHUP: re-reads and validates the file. A bad file keeps the running configuration (each
/// problem is logged as an error); a good one applies `[log] level`. Everything else (devices,
/// URLs, keys, the socket) is only read at start.
struct ConfigReloader: Service {
    let path: String
    let running: JarvisVoiceConfig
    let logLevel: ReloadableLogLevel
    let notify: SDNotify
    let logger: Logger

    func run() async throws {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        await cancelWhenGracefulShutdown {
            for await _ in hangups { reload() }
        }
    }

    func reload() {
        _ = try? notify.reloading()
        defer { _ = try? notify.ready() }
        logger.notice("SIGHUP: reloading \(path)")
        let config: JarvisVoiceConfig
        do {
            config = try ConfigLoader.load(path: path)
        } catch {
            for line in error.lines { logger.error("\(line)") }
            logger.error("reload failed: keeping the running configuration")
            return
        }
        logLevel.level = config.log.level
        var changed: [String] = []
        if config.audio != running.audio { changed.append("[audio]") }
        if config.dsp != running.dsp { changed.append("[dsp]") }
        if config.realtime != running.realtime { changed.append("[realtime]") }
        if config.jarvis != running.jarvis { changed.append("[jarvis]") }
        if config.button != running.button { changed.append("[button]") }
        if config.led != running.led { changed.append("[led]") }
        if config.media != running.media { changed.append("[media]") }
        if config.control != running.control { changed.append("[control]") }
        let note = changed.isEmpty
            ? "device, network and socket settings need a restart to change"
            : "changes in \(changed.joined(separator: " ")) need a restart (systemctl restart jarvis-voice)"
        logger.notice("reloaded \(path): log level \(config.log.level); \(note)")
    }
}
