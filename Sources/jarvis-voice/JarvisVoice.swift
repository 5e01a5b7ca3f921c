import ArgumentParser

@main
struct JarvisVoice: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jarvis-voice",
        abstract: "A headless voice appliance: talk button, echo-cancelled mic, Realtime API, Jarvis.",
        subcommands: [DSPCommand.self]
    )
}
