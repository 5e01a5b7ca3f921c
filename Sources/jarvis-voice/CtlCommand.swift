import ArgumentParser
import Configuration
import Control
import Glibc
import Systemd

/// `jarvis-voice ctl --config PATH COMMAND [ARG]`: one request to the running service.
struct CtlCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ctl",
        abstract: "Send a command to the running service over its control socket.",
        discussion: """
            COMMAND is one of: tap, press, release, ask TEXT, status, play URL, station NAME, \
            podcast FEED_URL, pause, resume, stop, skip, volume LEVEL (0.0-1.0), reset, say TEXT, \
            voice-volume LEVEL (0.0-1.0), mute on|off (the microphone privacy mute; kept across restarts), \
            timer list | add DURATION [LABEL] | add HH:MM [LABEL] | cancel LABEL|ID | stop \
            (DURATION like 90s, 10m, 1h30m; HH:MM sets an alarm; stop silences what rings), \
            room-stream NAME (the Snapcast group of this box plays the snapserver's stream NAME).
            `status` prints readable lines at a terminal and one JSON object otherwise (a pipe, a file, \
            or --json); other commands print the service's one-line answer. `say` waits until the announcement has been spoken (exit 0) or says why it could not \
            be (exit 1). Only [control] socket is read from the configuration file.
            Exit codes: 0 done; 1 the service refused or failed the command; 64 bad command or \
            argument; 69 the service is not running; 74 communication error; 75 no answer in time; \
            77 no permission on the socket; 78 configuration error.
            """
    )

    @OptionGroup var options: ConfigOption

    @Argument(
        parsing: .allUnrecognized,
        help: ArgumentHelp("The command and its argument (ask and say take the rest of the line).", valueName: "COMMAND [ARG]"),
        completion: .custom { words, index, prefix in CtlCompletion.candidates(words: words, index: index, prefix: prefix) })
    var words: [String] = []

    /// `status --json`: the JSON object even at a terminal.
    @Flag(name: .long, help: "With status: print the JSON object even at a terminal (scripts get it anyway).")
    var json = false

    /// How long to wait for the service's answer.
    @Option(name: .long, help: ArgumentHelp("Seconds to wait for the answer (default 15; say: 340).", valueName: "SECONDS"))
    var timeout: Double?

    static let exUnavailable = ExitCode(69)
    static let exIOError = ExitCode(74)
    static let exTempFail = ExitCode(75)
    static let exNoPermission = ExitCode(77)

    func validate() throws {
        let command = try command()
        if json, command != .status { throw ValidationError("--json goes with status only") }
        guard let timeout else { return }
        guard timeout > 0, timeout <= 3600 else { throw ValidationError("--timeout must be between 0 and 3600 seconds") }
    }

    /// The request typed on the command line; `ask` joins its words, other verbs take at most one.
    func command() throws -> ControlCommand {
        guard let verb = words.first else {
            throw ValidationError("missing COMMAND; expected one of: \(ControlCommand.verbs.joined(separator: ", "))")
        }
        let rest = Array(words.dropFirst())
        if !ControlCommand.textVerbs.contains(verb) && rest.count > 1 {
            throw ValidationError("\(verb) takes at most one argument, got \(rest.count)")
        }
        do {
            return try ControlCommand(verb: verb, argument: rest.isEmpty ? nil : rest.joined(separator: " "))
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() throws {
        let command = try command()
        let socket: String
        do {
            socket = try ConfigLoader.loadControl(path: options.config).socket
        } catch {
            for line in error.lines { StandardErrorWriter.shared.write(line: line) }
            throw ConfigOption.exConfig
        }
        let reply: ControlWire.Reply
        do {
            // Default: 15 s, or the service's own answer time plus a margin for `say`.
            let defaultWait: Duration = if case .say = command { command.answerTime + .seconds(10) } else { .seconds(15) }
            let wait = timeout.map { Duration.milliseconds(Int($0 * 1000)) } ?? defaultWait
            reply = try ControlClient.send(command, to: socket, timeout: wait)
        } catch {
            StandardErrorWriter.shared.write(line: "jarvis-voice ctl: \(error)")
            switch error {
            case .notRunning: throw Self.exUnavailable
            case .permissionDenied: throw Self.exNoPermission
            case .timedOut: throw Self.exTempFail
            case .io, .protocolError: throw Self.exIOError
            }
        }
        switch reply {
        case .failed(let message):
            StandardErrorWriter.shared.write(line: "jarvis-voice ctl: \(command.verb): \(message)")
            throw ExitCode.failure
        case .ok(let result):
            if command == .status {
                // A person at a terminal reads lines; a script (a pipe, a file) or --json gets the object.
                print(json || isatty(STDOUT_FILENO) == 0 ? result.jsonText : ServiceStatusText.render(result))
            } else {
                print(reply.message ?? result.jsonText)
            }
        }
    }
}
