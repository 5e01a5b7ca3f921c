import AudioEngine
import Logging
import ServiceLifecycle
import Synchronization
import Systemd

/// Talks to systemd. `READY=1` as soon as it runs: the service group starts it after the
/// configuration was validated and the control socket bound, so the service is serving, with or
/// without sound devices. Then every tick (`ServiceHealth` decides): `STATUS=` (the engine's state,
/// or the devices audio waits for) and `WATCHDOG=1` while the service's own loops are alive.
/// `STOPPING=1` on shutdown. `status(_:)` is the runner's state hook.
final class SystemdSupervisor: Service, Sendable {
    let notify: SDNotify
    let pipeline: AudioPipeline
    let controlSocket: String
    let logger: Logger
    private let health: Mutex<ServiceHealth>

    init(notify: SDNotify, pipeline: AudioPipeline, controlSocket: String, logger: Logger, health: ServiceHealth = ServiceHealth()) {
        self.notify = notify
        self.pipeline = pipeline
        self.controlSocket = controlSocket
        self.logger = logger
        self.health = Mutex(health)
    }

    func run() async throws {
        send("READY=1") { try notify.ready() }
        logger.notice("ready: control socket \(controlSocket)")
        await cancelWhenGracefulShutdown {
            await self.supervise()
        }
        try? await gracefulShutdown()
        send("STOPPING=1") { try notify.stopping() }
    }

    /// `STATUS=<state>` (or what audio waits for); called on every engine state change.
    func status(_ state: String) {
        apply(health.withLock { $0.engineStateChanged(state) })
    }

    /// A tick every half watchdog interval (at most 1 s, for a timely STATUS= without a watchdog).
    private func supervise() async {
        let interval = min(notify.watchdogPingInterval ?? .seconds(1), .seconds(1))
        while !Task.isCancelled {
            let observation = observe()
            apply(health.withLock { $0.tick(observation) })
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }

    private func observe() -> ServiceHealth.Observation {
        let devices = [
            ServiceHealth.DeviceLoop(
                name: "capture device \(pipeline.configuration.captureDevice.name)", isOpen: pipeline.captureLoop.status.isRunning,
                lastPeriodNanoseconds: pipeline.captureLoop.status.lastPeriodNanoseconds),
            ServiceHealth.DeviceLoop(
                name: "playback device \(pipeline.configuration.playbackDevice.name)", isOpen: pipeline.playbackLoop.status.isRunning,
                lastPeriodNanoseconds: pipeline.playbackLoop.status.lastPeriodNanoseconds)
        ]
        return ServiceHealth.Observation(
            now: monotonicNanoseconds(), devices: devices,
            serviceLoopTick: pipeline.lastServiceTickNanoseconds)
    }

    private func apply(_ effects: [ServiceHealth.Effect]) {
        for effect in effects {
            switch effect {
            case .status(let text): send("STATUS") { try notify.status(text) }
            case .watchdog: if notify.watchdogTimeout != nil { send("WATCHDOG=1") { try notify.watchdog() } }
            case .notice(let text): logger.notice("\(text)")
            case .error(let text): logger.error("\(text)")
            }
        }
    }

    private func send(_ what: String, _ body: () throws -> Bool) {
        do { _ = try body() } catch { logger.warning("sd_notify \(what) failed: \(error)") }
    }
}
