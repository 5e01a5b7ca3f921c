import AudioEngine
import Logging
import ServiceLifecycle
import Systemd

/// Talks to systemd: `READY=1` once both audio threads run, `WATCHDOG=1` only while audio is really
/// flowing (a stuck realtime thread then gets the service restarted), `STOPPING=1` on shutdown.
/// `STATUS=` lines come from the runner's state hook (`status(_:)`).
struct SystemdSupervisor: Service {
    let notify: SDNotify
    let pipeline: AudioPipeline
    let logger: Logger
    /// Audio that has not completed a period for this long counts as stuck (at most the watchdog timeout).
    var stuckAfter: Duration = .seconds(2)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await supervise()
        }
        // Without a systemd watchdog there is nothing left to do but wait for the shutdown.
        try? await gracefulShutdown()
        send("STOPPING=1") { try notify.stopping() }
    }

    /// `STATUS=<state>`; called on every engine state change.
    func status(_ text: String) {
        send("STATUS") { try notify.status(text) }
    }

    private func supervise() async {
        // Ready once both devices have completed a period (a device that never opens keeps us
        // "activating", and systemd's start timeout reports it).
        while !pipeline.isAlive(within: stuckAfter.nanoseconds) {
            do { try await Task.sleep(for: .milliseconds(10)) } catch { return }
        }
        send("READY=1") { try notify.ready(status: "idle") }
        logger.notice("ready: audio running")
        guard notify.isEnabled, let interval = notify.watchdogPingInterval, let timeout = notify.watchdogTimeout else { return }
        let aliveWithin = min(stuckAfter, timeout)
        let within = aliveWithin.nanoseconds
        var stuck = false
        while !Task.isCancelled {
            if pipeline.isAlive(within: within) {
                if stuck { logger.notice("audio is flowing again; watchdog pings resumed") }
                stuck = false
                send("WATCHDOG=1") { try notify.watchdog() }
            } else if !stuck {
                stuck = true
                logger.error("audio threads completed no period for \(aliveWithin); withholding watchdog pings so systemd restarts the service")
            }
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }

    private func send(_ what: String, _ body: () throws -> Bool) {
        do { _ = try body() } catch { logger.warning("sd_notify \(what) failed: \(error)") }
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
