import ALSATestbed
import Glibc
import TestProcess
import TestSupport
import Testing

/// `jarvis-voice run` as a child process: paced test PCMs from a private ALSA configuration, the
/// Realtime stand-in, the term-llm stand-in as Jarvis, the control socket in a temporary directory.
@Suite(.serialized, .timeLimit(.minutes(3))) struct RunCommandTests {
    let dir = TemporaryDirectory()

    var binary: String {
        get throws { try #require(ChildProcess.builtExecutable(), "jarvis-voice is not built next to the tests") }
    }

    /// A private ALSA configuration with a paced mic (silence) and a paced speaker writing `played.raw`.
    func alsaConfig() throws -> String {
        let path = dir.file("asound.conf")
        try TestPCMConfig.write(
            [
                .paced(name: "run_mic", PacedPCMOptions(failFile: dir.file("unplugged"))),
                .paced(name: "run_speaker", PacedPCMOptions(outfile: dir.file("played.raw")))
            ], to: path)
        return path
    }

    /// The service's configuration against the stand-ins (written to the same file each time).
    func config(_ realtime: RealtimeStandIn, _ jarvis: TermLLMStandIn, logLevel: String = "debug", voice: String = "marin") throws -> String {
        let key = dir.write("openai.key", realtime.script.apiKey + "\n")
        let token = dir.write("jarvis.token", "s3cret\n")
        return ServiceConfig(
            capture: "run_mic", playback: "run_speaker", audio: ["realtime_priority = 0"], realtimeURL: realtime.url,
            apiKeyFile: key, realtime: ["voice = \"\(voice)\""], jarvisURL: jarvis.baseURL, tokenFile: token,
            controlSocket: dir.file("run/control.sock"), media: ["state_dir = \"\(dir.file("state"))\""], logLevel: logLevel
        ).write(to: dir)
    }

    /// The Realtime and term-llm stand-ins, the paced devices and a configuration pointing at them.
    func startStandIns(logLevel: String = "debug") async throws -> (
        realtime: RealtimeStandIn, jarvis: TermLLMStandIn, alsa: String, config: String
    ) {
        let realtime = try await RealtimeStandIn.start()
        let jarvis = try await TermLLMStandIn.start()
        let alsa = try alsaConfig()
        return (realtime, jarvis, alsa, try config(realtime, jarvis, logLevel: logLevel))
    }

    /// `run` in the background, its stderr in `log`; `notify` and `watchdogUSec` set systemd's variables.
    func startService(_ config: String, alsa: String, log: String, notify: NotifyRecorder? = nil, watchdogUSec: Int? = nil) throws
        -> BackgroundProcess
    {
        var environment = environment(alsa: alsa)
        if let notify { environment["NOTIFY_SOCKET"] = notify.address }
        if let watchdogUSec { environment["WATCHDOG_USEC"] = String(watchdogUSec) }
        return try BackgroundProcess([try binary, "run", "--config", config], environment: environment, stderr: .file(log))
    }

    func environment(alsa: String) -> [String: String] {
        [
            "ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:\(alsa)", "OPENAI_API_KEY": "", "CREDENTIALS_DIRECTORY": "",
            "NOTIFY_SOCKET": "", "WATCHDOG_USEC": ""
        ]
    }

    func ctl(_ config: String, _ words: String...) async throws -> ChildProcess.Result {
        try await ChildProcess.run([try binary, "ctl", "--config", config, "--timeout", "3"] + words, timeout: .seconds(10))
    }

    /// Polls `ctl status` until the service answers.
    func waitForStatus(_ config: String, timeout: Duration = hangTimeout) async throws -> ChildProcess.Result? {
        try await waitFor(timeout: timeout, interval: .milliseconds(50)) {
            let result = try await ctl(config, "status")
            return result.status == 0 ? result : nil
        }
    }

    /// The top-level `state` (the `media` object has a `state` of its own).
    func state(_ result: ChildProcess.Result) -> String? {
        var text = result.stdout
        if let media = text.firstRange(of: #""media":{"#), let end = text[media.upperBound...].firstIndex(of: "}") {
            text.removeSubrange(media.lowerBound...end)
        }
        guard let range = text.firstRange(of: #""state":""#) else { return nil }
        return String(text[range.upperBound...].prefix { $0 != "\"" })
    }

    @Test func servesControlTapsAndShutsDownCleanly() async throws {
        let (realtime, jarvis, alsa, config) = try await startStandIns()
        let log = dir.file("service.log")
        let service = try startService(config, alsa: alsa, log: log)
        defer { _ = service.signal(SIGKILL) }

        let first = try #require(await waitForStatus(config), "no status answer; log:\n\(readLog(log))")
        #expect(state(first) == "idle", "\(first.stdout)")
        #expect(first.stdout.contains(#""realtime_connected":false"#))
        #expect(first.stdout.contains(#""volume":0.5"#))
        #expect(service.exitStatus == nil)

        // A second instance finds the socket answering and refuses to start (exit 1) without touching the devices.
        let second = try await ChildProcess.run(
            [try binary, "run", "--config", config], environment: environment(alsa: alsa),
            timeout: .seconds(10))
        #expect(second.status == 1, "\(second)")
        #expect(second.stderr.contains("another jarvis-voice is running"), "\(second.stderr)")
        #expect(service.exitStatus == nil)

        // A media verb with nothing to act on is refused with a reason, not crashed on.
        let pause = try await ctl(config, "pause")
        #expect(pause.status == 1 && !pause.stderr.isEmpty, "\(pause)")

        let tap = try await ctl(config, "tap")
        #expect(tap.status == 0, "\(tap)")
        #expect(await realtime.waitForClientEvent("session.update"), "log:\n\(readLog(log))")
        let afterTap = try await ctl(config, "status")
        #expect(["connecting", "listening"].contains(state(afterTap)), "\(afterTap.stdout)")

        // SIGHUP with a broken file: the service keeps running on the old configuration.
        _ = dir.write("config.toml", "[audio\nperiod_ms = 500\n")
        #expect(service.signal(SIGHUP))
        let reloaded = await waitUntilLogged(log, "reload failed")
        #expect(reloaded, "log:\n\(readLog(log))")
        #expect(readLog(log).contains("<3>config: \(config):1:"))
        #expect(service.exitStatus == nil)
        // ctl only needs [control]: restore a readable file for it.
        _ = try self.config(realtime, jarvis)
        let stillThere = try await ctl(config, "status")
        #expect(stillThere.status == 0, "\(stillThere)")

        // Audio really ran through the paced speaker.
        #expect(((try? TestFiles.read(dir.file("played.raw")))?.count ?? 0) > 0)

        let start = ContinuousClock.now
        #expect(service.signal(SIGTERM))
        let status = await service.wait(timeout: .seconds(15))
        let took = ContinuousClock.now - start
        #expect(status == 0, "log:\n\(readLog(log))")
        // Within the unit's TimeoutStopSec=5s (the drain is bounded at 1.5 s + 0.3 s; two more busy loops
        // on the 2 cores made it 2.2 s once, and once the group cancelled after the 1.5 s and still exited 0).
        #expect(took < .seconds(5), "shutdown took \(took)")
        #expect(!TestFiles.exists(dir.file("run/control.sock")))
        #expect(!readLog(log).contains(realtime.script.apiKey))
        await realtime.shutdown()
        await jarvis.stop()
    }

    @Test func notifiesSystemdAndAppliesTheLogLevelOnReload() async throws {
        let (realtime, jarvis, alsa, config) = try await startStandIns(logLevel: "info")
        let notify = NotifyRecorder()
        let log = dir.file("service.log")
        let service = try startService(config, alsa: alsa, log: log, notify: notify, watchdogUSec: 500_000)
        defer { _ = service.signal(SIGKILL) }

        #expect(await notify.receive { $0.hasPrefix("READY=1") }, "\(notify.messages); log:\n\(readLog(log))")
        #expect(await notify.receive { $0 == "WATCHDOG=1" }, "\(notify.messages)")

        _ = try #require(await waitForStatus(config))
        #expect(!readLog(log).contains("<7>"), "info level logs no debug lines")
        #expect(try await ctl(config, "tap").status == 0)
        #expect(await notify.receive { $0 == "STATUS=connecting" || $0 == "STATUS=listening" }, "\(notify.messages)")

        // The mic disappears: STATUS= says what the service waits for, and the watchdog keeps being
        // fed (the reopen loop recovers; a restart would not help).
        try TestFiles.write([], to: dir.file("unplugged"))
        #expect(await notify.receive { $0 == "STATUS=waiting for capture device run_mic…" }, "\(notify.messages) log:\n\(readLog(log))")
        #expect(await waitUntilLogged(log, "waiting for capture device run_mic (the service keeps running"), "log:\n\(readLog(log))")
        #expect(await notify.watchdogPings(2), "pings go on while unplugged: \(notify.messages)")
        TestFiles.remove(dir.file("unplugged"))
        #expect(await notify.receive { $0.hasPrefix("STATUS=") && !$0.hasPrefix("STATUS=waiting") }, "the engine state is back: \(notify.messages)")
        #expect(await waitUntilLogged(log, "audio running: capture device run_mic and playback device run_speaker open"), "log:\n\(readLog(log))")
        #expect(!readLog(log).contains("withholding watchdog pings"), "log:\n\(readLog(log))")

        // A good file: the new level applies at once; other changes are named as needing a restart.
        _ = try self.config(realtime, jarvis, logLevel: "debug", voice: "cedar")
        #expect(service.signal(SIGHUP))
        #expect(await notify.receive { $0.hasPrefix("RELOADING=1") }, "\(notify.messages)")
        #expect(
            await waitUntilLogged(
                log, "reloaded \(config): applied [log] level = debug; [realtime] voice needs a restart (systemctl restart jarvis-voice)"),
            "log:\n\(readLog(log))")
        #expect(try await ctl(config, "status").status == 0)
        #expect(await waitUntilLogged(log, "<7>control: control command status"), "log:\n\(readLog(log))")

        // A quieter level still says what the reload applied (before it silences notices).
        _ = try self.config(realtime, jarvis, logLevel: "error", voice: "cedar")
        #expect(service.signal(SIGHUP))
        #expect(await waitUntilLogged(log, "reloaded \(config): applied [log] level = error"), "log:\n\(readLog(log))")

        #expect(service.signal(SIGTERM))
        #expect(await notify.receive { $0 == "STOPPING=1" }, "\(notify.messages)")
        #expect(await service.wait(timeout: .seconds(15)) == 0)
        await realtime.shutdown()
        await jarvis.stop()
    }

    @Test func readyWithoutACaptureDeviceAndPicksItUpLater() async throws {
        let (realtime, jarvis, alsa, config) = try await startStandIns(logLevel: "info")
        try TestFiles.write([], to: dir.file("unplugged"))
        let notify = NotifyRecorder()
        let log = dir.file("nodevice.log")
        let service = try startService(config, alsa: alsa, log: log, notify: notify, watchdogUSec: 1_000_000)
        defer { _ = service.signal(SIGKILL) }

        // Serving without a mic: READY, what it waits for, watchdog pings, and the control socket.
        #expect(await notify.receive { $0 == "READY=1" }, "\(notify.messages); log:\n\(readLog(log))")
        #expect(await notify.receive { $0 == "STATUS=waiting for capture device run_mic…" }, "\(notify.messages); log:\n\(readLog(log))")
        #expect(await notify.receive { $0 == "WATCHDOG=1" }, "\(notify.messages)")
        let status = try #require(await waitForStatus(config))
        #expect(status.stdout.contains("\"state\""), "\(status)")
        #expect(await notify.watchdogPings(2), "\(notify.messages)")
        #expect(notify.messages.allSatisfy { $0 == "WATCHDOG=1" }, "nothing else changes while it waits: \(notify.messages)")

        // The mic appears: audio starts without a restart.
        TestFiles.remove(dir.file("unplugged"))
        #expect(await notify.receive { $0 == "STATUS=idle" }, "\(notify.messages); log:\n\(readLog(log))")
        #expect(await waitUntilLogged(log, "capture device run_mic opened"), "log:\n\(readLog(log))")
        #expect(service.signal(SIGTERM))
        #expect(await service.wait(timeout: .seconds(15)) == 0)
        await realtime.shutdown()
        await jarvis.stop()
    }

    @Test func badConfigExits78BeforeTouchingDevices() async throws {
        let alsa = dir.file("asound.conf")
        try TestPCMConfig.write(
            [
                .file(name: "bad_mic", infile: "/dev/zero", outfile: nil),
                .file(name: "bad_speaker", infile: nil, outfile: dir.file("bad.raw"))
            ], to: alsa)
        let config = ServiceConfig(
            capture: "bad_mic", playback: "bad_speaker", audio: ["period_ms = 500"],
            controlSocket: dir.file("bad/control.sock")
        ).write(to: dir, as: "bad.toml")
        let result = try await ChildProcess.run(
            [try binary, "run", "--config", config], environment: environment(alsa: alsa),
            timeout: .seconds(10))
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("<3>\(config):4: "), "\(result.stderr)")
        #expect(!TestFiles.exists(dir.file("bad.raw")))
        #expect(!TestFiles.exists(dir.file("bad/control.sock")))
    }

    func readLog(_ path: String) -> String {
        TestFiles.readText(path) ?? ""
    }

    func waitUntilLogged(_ path: String, _ text: String, timeout: Duration = hangTimeout) async -> Bool {
        await waitUntil(timeout: timeout, interval: .milliseconds(20)) { readLog(path).contains(text) }
    }
}

/// What `run` tells systemd through `NOTIFY_SOCKET`, collected as it arrives.
final class NotifyRecorder {
    private let listener = NotifyListener(abstract: false)
    private(set) var messages: [String] = []

    var address: String { listener.address }

    func clear() { messages.removeAll() }

    /// Forgets what came before, then collects messages until `count` watchdog pings have arrived.
    func watchdogPings(_ count: Int, within timeout: Duration = .seconds(5)) async -> Bool {
        clear()
        var pings = 0
        return await receive(within: timeout) { message in
            if message == "WATCHDOG=1" { pings += 1 }
            return pings >= count
        }
    }

    /// Collects messages until one satisfies `predicate` (true) or `timeout` passes (false).
    func receive(within timeout: Duration = .seconds(5), until predicate: (String) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let message = await listener.receive(within: .milliseconds(100)) else { continue }
            messages.append(message)
            if predicate(message) { return true }
        }
        return false
    }
}
