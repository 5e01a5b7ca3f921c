import ArgumentParser

@main
struct JarvisVoice: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jarvis-voice",
        abstract: "A headless voice appliance: talk button, echo-cancelled mic, Realtime API, Jarvis.",
        version: "jarvis-voice \(Version.current)",
        subcommands: [
            AudioCheckCommand.self, CheckConfigCommand.self, CtlCommand.self, DemoCommand.self, DevicesCommand.self, DoctorCommand.self,
            DSPCommand.self, ModelsCommand.self, RunCommand.self
        ]
    )

    /// No subcommand is a usage error (exit 64, EX_USAGE), not a help page that exits 0.
    func run() async throws {
        throw ValidationError("a subcommand is needed, e.g. 'jarvis-voice run' or 'jarvis-voice ctl status'")
    }
}
