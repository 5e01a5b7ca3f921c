import Control
import Glibc
import TestProcess
import TestSupport
import Testing

/// `jarvis-voice ctl` as a subprocess against an in-test server with a fake handler.
@Suite struct CtlCommandTests {
    let dir = TemporaryDirectory()

    func config(socket: String) -> String {
        dir.write("config.toml", "[control]\nsocket = \"\(socket)\"\n[audio]\nperiod_ms = 500  # invalid, but ctl reads only [control]\n")
    }

    func ctl(_ arguments: [String], config: String) async throws -> ChildProcess.Result {
        let binary = try #require(ChildProcess.builtExecutable(), "jarvis-voice is not built next to the tests")
        return try await ChildProcess.run([binary, "ctl", "--config", config] + arguments)
    }

    func withServer(handler: RecordingHandler, _ body: (String) async throws -> Void) async throws {
        let server = try await ControlServer.bind(path: dir.file("control.sock"), handler: handler, executor: StandInExecutor.shared)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            try await body(server.path)
            group.cancelAll()
            try await group.waitForAll()
        }
    }

    @Test func statusPrintsExactlyOneJSONObject() async throws {
        let handler = RecordingHandler()
        try await withServer(handler: handler) { socket in
            let result = try await ctl(["status"], config: config(socket: socket))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stdout
                    == #"{"audio":null,"barge_ins":0,"cost_usd":{"since_start":0,"today":0},"echo_turns_ignored":0,"jarvis_session_id":null,"malformed_events":0,"#
                    + #""media":{"ducked":false,"state":"stopped","title":null,"url":null,"volume":0.5},"muted":false,"realtime_connected":false,"#
                    + #""snapcast":null,"state":"idle","timers":[],"unknown_events":0,"voice_pauses_resumed":0,"voice_volume":1}"# + "\n")
            #expect(result.stderr == "")
            let json = try await ctl(["status", "--json"], config: config(socket: socket))
            #expect(json.status == 0 && json.stdout == result.stdout, "status --json prints the same object")
            #expect(try await ctl(["tap", "--json"], config: config(socket: socket)).status == 64)
        }
        #expect(handler.commands == [.status, .status])
    }

    /// At a terminal (`script` gives `ctl` a pseudo-terminal) `status` is lines a person reads; `--json` there
    /// is still the object.
    @Test func statusAtATerminalIsReadableText() async throws {
        let binary = try #require(ChildProcess.builtExecutable(), "jarvis-voice is not built next to the tests")
        try #require(access("/usr/bin/script", X_OK) == 0, "script (util-linux) is missing")
        let handler = RecordingHandler()
        try await withServer(handler: handler) { socket in
            let config = config(socket: socket)
            let text = try await ChildProcess.run(["/usr/bin/script", "-qec", "\(binary) ctl -c \(config) status", "/dev/null"])
            #expect(text.status == 0, "\(text.stderr)")
            #expect(
                text.stdout.split(whereSeparator: \.isNewline) == [
                    "state: idle (Realtime not connected)",
                    "microphone: on; voice volume 1",
                    "media: stopped; volume 0.5",
                    "timers: none",
                    "cost: $0.0000 today, $0.0000 since start",
                    "Jarvis session: none"
                ], "\(text.stdout)")
            let json = try await ChildProcess.run(["/usr/bin/script", "-qec", "\(binary) ctl -c \(config) status --json", "/dev/null"])
            #expect(json.stdout.hasPrefix(#"{"audio":null,"#), "\(json.stdout)")
        }
    }

    /// The bash completion the package installs, driven as bash drives it: `ctl <TAB>` offers the verbs,
    /// `station gr<TAB>` a built-in station, `mute <TAB>` on/off, `-c <TAB>` the .toml files.
    @Test func bashCompletesVerbsStationsAndConfigFiles() async throws {
        let binary = try #require(ChildProcess.builtExecutable(), "jarvis-voice is not built next to the tests")
        let script = try await ChildProcess.run([binary, "--generate-completion-script", "bash"])
        let file = dir.write("completion.bash", script.stdout)
        _ = dir.write("kitchen.toml", "")
        _ = dir.write("notes.txt", "")
        func complete(_ words: [String]) async throws -> [String] {
            let quoted = ([binary] + words).map { "'\($0)'" }.joined(separator: " ")
            let program = """
                cd '\(dir.path)'; source '\(file)'
                COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count); COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
                _jarvis-voice '\(binary)' "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            return try await ChildProcess.run(["/bin/bash", "-c", program]).stdout.split(separator: "\n").map(String.init)
        }
        #expect(try await complete(["ctl", ""]) == ControlCommand.verbs)
        #expect(try await complete(["ctl", "station", "gr"]) == ["groovesalad"])
        #expect(try await complete(["ctl", "mute", ""]) == ["on", "off"])
        #expect(try await complete(["ctl", "-c", ""]) == ["kitchen.toml"])
    }

    @Test func verbsWithArgumentsReachTheHandler() async throws {
        let handler = RecordingHandler()
        try await withServer(handler: handler) { socket in
            let config = config(socket: socket)
            let tap = try await ctl(["tap"], config: config)
            #expect(tap.status == 0)
            #expect(tap.stdout == "ok: tap\n")
            let ask = try await ctl(["ask", "what's", "the", "weather?"], config: config)
            #expect(ask.status == 0)
            let quoted = try await ctl(["ask", "turn it up"], config: config)
            #expect(quoted.status == 0)
            let volume = try await ctl(["volume", "0.4"], config: config)
            #expect(volume.status == 0)
            #expect(volume.stdout == "ok: volume\n")
            let reset = try await ctl(["reset"], config: config)
            #expect(reset.status == 1)
            #expect(reset.stderr.contains("nothing to reset"))
            let say = try await ctl(["say", "the", "laundry", "is", "done"], config: config)
            #expect(say.status == 0)
            let everyRoom = try await ctl(["say", "--rooms", "all", "dinner", "is", "ready"], config: config)
            #expect(everyRoom.status == 0, "\(everyRoom.stderr)")
            let voice = try await ctl(["voice-volume", "0.5"], config: config)
            #expect(voice.status == 0)
        }
        #expect(
            handler.commands == [
                .tap, .ask("what's the weather?"), .ask("turn it up"), .volume(0.4), .reset,
                .say("the laundry is done"), .sayInEveryRoom("dinner is ready"), .voiceVolume(0.5)
            ])
    }

    @Test func badArgumentsExit64WithoutContactingTheService() async throws {
        let handler = RecordingHandler()
        try await withServer(handler: handler) { socket in
            let config = config(socket: socket)
            for arguments in [["volume", "2"], ["volume", "loud"], ["dance"], ["play"], ["tap", "now"], [], ["station", "a", "b"]] {
                let result = try await ctl(arguments, config: config)
                #expect(result.status == 64, "\(arguments): \(result.stderr)")
                #expect(!result.stderr.isEmpty)
            }
            let volume = try await ctl(["volume", "2"], config: config)
            #expect(volume.stderr.contains("volume must be a number from 0.0 to 1.0"))
        }
        #expect(handler.commands.isEmpty)
    }

    @Test func noServiceIsAClearMessage() async throws {
        let socket = dir.file("nobody.sock")
        let result = try await ctl(["status"], config: config(socket: socket))
        #expect(result.status == 69)
        #expect(result.stdout == "")
        #expect(result.stderr == "jarvis-voice ctl: jarvis-voice is not running (no control socket at \(socket))\n")
    }

    @Test func configProblemsExit78WithLines() async throws {
        let bad = dir.write("bad.toml", "[control]\nsocket = \"relative.sock\"\n")
        let result = try await ctl(["status"], config: bad)
        #expect(result.status == 78)
        #expect(result.stderr == "\(bad):2: [control] socket must be an absolute path, got \"relative.sock\"\n")
        let missing = try await ctl(["status"], config: dir.file("none.toml"))
        #expect(missing.status == 78)
        #expect(missing.stderr.hasPrefix("\(dir.file("none.toml")): cannot read file"))
    }
}
