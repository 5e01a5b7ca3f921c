import ArgumentParser
import Configuration

/// `jarvis-voice check-config --config PATH`: validates the file without touching devices or secrets.
struct CheckConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate the configuration file.",
        discussion: """
            Prints one "PATH:LINE: message" line per problem on standard output and exits 78 \
            (EX_CONFIG); prints "PATH: OK" and exits 0 when the file is valid. Problems with the \
            file itself (missing, unreadable) are reported on line 1. Secrets are not read; \
            `jarvis-voice doctor` checks them.
            """
    )

    @OptionGroup var options: ConfigOption

    func run() throws {
        do {
            _ = try ConfigLoader.load(path: options.config)
            print("\(options.config): OK")
        } catch {
            for line in error.lines { print(line) }
            throw ConfigOption.exConfig
        }
    }
}
