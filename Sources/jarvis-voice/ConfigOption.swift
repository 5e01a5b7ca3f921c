import ArgumentParser
import Configuration
import Systemd

/// `-c`/`--config PATH`, shared by every command that reads the configuration file.
struct ConfigOption: ParsableArguments {
    @Option(
        name: [.short, .long], help: ArgumentHelp("Configuration file (TOML).", valueName: "PATH"),
        completion: .file(extensions: ["toml"]))
    var config: String = ConfigLoader.defaultPath

    /// Exit code for configuration errors (sysexits.h EX_CONFIG).
    static let exConfig = ExitCode(78)

    /// For `run` (and `doctor`): load and validate before touching any device. On problems, logs
    /// each `PATH:LINE: message` to stderr as a journald error (`<3>`) and exits 78; a renamed key
    /// still accepted is a journald warning (`<4>`).
    func loadValidatedConfig() throws -> JarvisVoiceConfig {
        do {
            let loaded = try ConfigLoader.loadReportingRenames(path: config)
            for warning in loaded.warnings {
                StandardErrorWriter.shared.write(line: "<4>" + warning.formatted(path: config, label: "warning"))
            }
            return loaded.config
        } catch {
            for line in error.lines {
                StandardErrorWriter.shared.write(line: "<3>" + line)
            }
            throw Self.exConfig
        }
    }

    /// For `run`: the OpenAI key (required) and the Jarvis token (optional). A missing key or an
    /// unsafe secret file is a configuration error: logged (without the secret) and exit 78. A
    /// configured file the service cannot read, passed over for a credential, is one warning line.
    func loadSecrets(_ config: JarvisVoiceConfig, environment: [String: String]? = nil) throws -> (openAIKey: Secret, jarvisToken: Secret?) {
        let loader = SecretLoader(environment: environment)
        do {
            let key = try loader.openAIKey(config.realtime)
            let token = try loader.jarvisToken(config.jarvis)
            for loaded in [key, token].compactMap({ $0 }) {
                if let skipped = loaded.skipped {
                    StandardErrorWriter.shared.write(line: "<4>\(self.config): \(skipped); using the \(loaded.secret.source)")
                }
            }
            return (key.secret, token?.secret)
        } catch {
            StandardErrorWriter.shared.write(line: "<3>\(self.config): \(error)")
            throw Self.exConfig
        }
    }
}
