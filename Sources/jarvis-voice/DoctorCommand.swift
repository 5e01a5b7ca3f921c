import ArgumentParser
import Configuration

/// `jarvis-voice doctor --config PATH`: a readable report, one line per check.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check configuration, secrets, devices and the reachability of the Realtime API and Jarvis.",
        discussion: """
            Prints one line per check: "✓ NAME: detail" or "✗ NAME: detail (fix: ...)", then a summary. \
            Checks: config valid; the OpenAI key and Jarvis token as the service will get them (configured \
            files as the service user can read them, owner-only; else the systemd credentials in \
            /etc/credstore; values never printed); \
            control socket directory writable; capture and playback PCMs open with the configured \
            parameters; GPIO chip(s) open when enabled; GET /v1/models on the Realtime API host with \
            the key (200 ok, 401 bad key, unreachable); Jarvis GET /healthz. Exit 0 when all pass, \
            1 when any fails, 78 when the configuration itself is invalid. Stop the service first: \
            it holds the sound devices.
            """
    )

    @OptionGroup var options: ConfigOption

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The user the service runs as: secret files are checked for what it can read, not the caller (\"\" = as the caller).",
            valueName: "USER"))
    var serviceUser: String = "jarvis-voice"

    func validate() throws {
        if !serviceUser.isEmpty, !ServiceFileAccess.userExists(serviceUser) {
            throw ValidationError("--service-user: there is no user \"\(serviceUser)\" on this system (the package creates jarvis-voice)")
        }
    }

    func run() async throws {
        let config: JarvisVoiceConfig
        do {
            config = try ConfigLoader.load(path: options.config)
        } catch {
            for line in error.lines { print("✗ config: \(line)") }
            print("✗ config is invalid; fix it first (`jarvis-voice check-config --config \(options.config)`)")
            throw ConfigOption.exConfig
        }
        let report = await DoctorChecks(config: config, configPath: options.config, environment: nil, serviceUser: serviceUser).run()
        for check in report.checks { print(check.line) }
        print(report.summary)
        if !report.allPassed { throw ExitCode.failure }
    }
}
