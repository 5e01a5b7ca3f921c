import ArgumentParser
import Configuration
import Realtime

/// `jarvis-voice check-config --config PATH`: validates the file without touching devices or secrets.
struct CheckConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate the configuration file.",
        discussion: """
            Prints one "PATH:LINE: message" line per problem on standard output and exits 78 \
            (EX_CONFIG); prints "PATH: OK" and exits 0 when the file is valid. Problems with the \
            file itself (missing, unreadable) have no line number. A Realtime model past its \
            shutdown date is a problem; one with a shutdown announced, or a key a release renamed \
            (accepted for one release), is a warning ("PATH:LINE: warning: ..."), still OK. Secrets \
            are not read; `jarvis-voice doctor` checks them.
            """
    )

    @OptionGroup var options: ConfigOption

    func run() throws {
        let config: JarvisVoiceConfig
        do {
            let loaded = try ConfigLoader.loadReportingRenames(path: options.config)
            config = loaded.config
            for warning in loaded.warnings { print(warning.formatted(path: options.config, label: "warning")) }
        } catch {
            for line in error.lines { print(line) }
            throw ConfigOption.exConfig
        }
        if let advice = RealtimeModels.advice(for: config.realtime.model, on: .today()) {
            let line = ConfigLoader.line(of: "model", in: "realtime", path: options.config) ?? 1
            let label = advice.severity == .error ? "" : "\(advice.severity.rawValue): "
            print("\(options.config):\(line): \(label)\(advice.text)")
            if advice.severity == .error { throw ConfigOption.exConfig }
        }
        print("\(options.config): OK")
    }
}
