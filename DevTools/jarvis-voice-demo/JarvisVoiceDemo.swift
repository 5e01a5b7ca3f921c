import ALSATestbed
import ArgumentParser
import AudioCore
import Basics
import Glibc
import Realtime
import Systemd
import TestProcess
import TestSupport

/// `jarvis-voice-demo` (also reached as `jarvis-voice demo`): one spoken turn through the real
/// service, with no sound card and no keys. A development tool: it links the stand-ins and test PCMs,
/// which the shipped `jarvis-voice` does not.
///
/// Starts the in-process Realtime and term-llm stand-ins, writes a temporary configuration with
/// paced file-backed ALSA devices (the package's own ioplug plugin), speaks the question into the
/// mic file (espeak-ng), runs the `jarvis-voice run` next to this executable as a child, taps the
/// button over the control socket, waits until the conversation is back to `idle`, and keeps what
/// the speaker played.
@main
struct JarvisVoiceDemo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jarvis-voice-demo",
        abstract: "Run one spoken turn through the real service against built-in stand-in servers (no sound card, no keys).",
        discussion: """
            Needs espeak-ng and sox (scripts/install-deps), and the jarvis-voice executable and the \
            paced test PCM plugin that `swift build` puts next to this one. Streams the service's log, \
            then prints the states, the turn's latency line and where the spoken answer was written.
            """
    )

    @Option(name: .long, help: ArgumentHelp("Where to write the spoken answer (WAV).", valueName: "PATH"))
    var out: String = "jarvis-demo-answer.wav"

    @Flag(name: .long, help: "Keep the temporary directory (configuration, audio files, service log).")
    var keep = false

    @Option(name: .long, help: ArgumentHelp("The question spoken into the mic.", valueName: "TEXT"))
    var question = "What is on my calendar today?"

    @Option(name: .long, help: ArgumentHelp("What the stand-in Jarvis answers (spoken by the stand-in Realtime API).", valueName: "TEXT"))
    var answer = "You have two things today: the dentist at ten, and dinner with Sam at seven."

    @Option(name: .long, help: ArgumentHelp("Give up after this many seconds.", valueName: "SECONDS"))
    var timeout: Int = 60

    /// Silence in the mic before the question: the tap lands in it (the idle pre-roll keeps 1 s more).
    static let leadMilliseconds = 1_200

    func validate() throws {
        guard timeout >= 5, timeout <= 600 else { throw ValidationError("--timeout must be between 5 and 600 seconds") }
        guard !question.isEmpty, !answer.isEmpty else { throw ValidationError("--question and --answer must not be empty") }
    }

    func run() async throws {
        let started = ContinuousClock.now
        let workspace: DemoWorkspace
        do {
            workspace = try DemoWorkspace()
        } catch {
            Self.fail(error)
        }
        var failure: DemoError?
        do {
            try await runDemo(workspace: workspace, started: started, deadline: started + .seconds(timeout))
        } catch {
            failure = error as? DemoError ?? DemoError("\(error)")
        }
        if keep {
            Self.say("demo: kept \(workspace.path) (configuration, audio files, service.log)")
        } else {
            workspace.remove()
        }
        if let failure { Self.fail(failure) }
    }

    private static func fail(_ error: DemoError) -> Never {
        fflush(nil)
        StandardErrorWriter.shared.write(line: "jarvis-voice-demo: \(error)")
        Glibc.exit(1)
    }

    static func say(_ line: String) {
        print(line)
        fflush(nil)
    }

    private func runDemo(workspace: DemoWorkspace, started: ContinuousClock.Instant, deadline: ContinuousClock.Instant) async throws {
        let plugin = try DemoWorkspace.pacedPluginPath()
        let executable = try DemoWorkspace.serviceExecutablePath()

        Self.say("demo: speaking the question and the answer with espeak-ng")
        let spokenQuestion = try await speak(question, rate: DemoWorkspace.captureRate, in: workspace, name: "question")
        let spokenAnswer = try await speak(answer, rate: 24_000, in: workspace, name: "answer")
        let mic =
            [Int16](repeating: 0, count: DemoWorkspace.captureRate * Self.leadMilliseconds / 1000) + spokenQuestion
            + [Int16](repeating: 0, count: DemoWorkspace.captureRate * 3)
        do { try TestFiles.write(samples: mic, to: workspace.micInput) } catch { throw DemoError("\(error)") }

        var script = RealtimeStandInScript()
        script.functionArguments = JSONValue.object(["query": .string(question)]).jsonText
        script.answerAudio = spokenAnswer
        script.answerTranscript = answer
        let realtime = try await RealtimeStandIn.start(script: script)
        let jarvis = try await TermLLMStandIn.start()
        let answerText = answer
        jarvis.setPlanner { _ in .answer(answerText) }
        Self.say("demo: stand-in Realtime API at \(realtime.url), stand-in Jarvis (term-llm) at \(jarvis.baseURL)")

        let result: Result<DemoRun, any Error>
        do {
            try workspace.writeConfiguration(
                realtimeURL: realtime.url, apiKey: script.apiKey, jarvisURL: jarvis.baseURL,
                jarvisToken: TermLLMStandIn.Options().token, pluginPath: plugin)
            result = .success(try await converse(executable: executable, workspace: workspace, deadline: deadline))
        } catch {
            result = .failure(error)
        }
        let jarvisRequests = jarvis.recordedRequests.count
        await realtime.shutdown()
        await jarvis.stop()
        let run = try result.get()

        let format = AudioFormat(sampleRate: DemoWorkspace.playbackRate, channels: DemoWorkspace.playbackChannels)
        let played: [Int16]
        do { played = try TestFiles.readSamples(workspace.speakerOutput) } catch { throw DemoError("no speaker output: \(error)") }
        let spoken = DemoAnswer.longestSound(in: played, format: format)
        let seconds = Double(spoken.count / format.channels) / Double(format.sampleRate)
        guard seconds >= 0.5 else {
            throw DemoError("the speaker played no answer (\(played.count / format.channels) frames, longest sound \(Self.format(seconds)) s)")
        }
        let wav = WAVFile(format: format, samples: spoken)
        do { try TestFiles.write(wav.bytes, to: out) } catch { throw DemoError("cannot write the answer: \(error)") }

        Self.say("")
        Self.say("demo: done in \(Self.format(Self.seconds(ContinuousClock.now - started))) s")
        Self.say("  states:  \(run.states.joined(separator: " -> "))")
        Self.say("  \(run.turnLine ?? "turn: (no turn line logged)")")
        Self.say("  asked Jarvis: \(jarvisRequests) request(s); the answer: \"\(answer)\"")
        Self.say("  answer:  \(out) (\(Self.format(seconds)) s, \(format))")
    }

    struct DemoRun {
        var states: [String]
        var turnLine: String?
    }

    /// Runs the service, taps, waits for the turn to finish and the conversation to go idle, stops it.
    private func converse(executable: String, workspace: DemoWorkspace, deadline: ContinuousClock.Instant) async throws -> DemoRun {
        Self.say("demo: $ jarvis-voice run --config \(workspace.config)")
        let service: BackgroundProcess
        do {
            service = try BackgroundProcess(
                [executable, "run", "--config", workspace.config], environment: workspace.serviceEnvironment,
                stderr: .file(workspace.serviceLog))
        } catch {
            throw DemoError("cannot start the service: \(error)")
        }
        var log = DemoServiceLog(path: workspace.serviceLog)
        func check(_ stage: String) throws {
            log.pump()
            if let status = service.exitStatus {
                throw DemoError("the service exited with status \(status) while \(stage)\(log.errors.last.map { ": \($0)" } ?? "")")
            }
            if ContinuousClock.now >= deadline {
                throw DemoError("gave up after \(timeout) s while \(stage) (last state: \(log.states.last ?? "none"))")
            }
        }
        func ctl(_ words: [String]) async throws -> ChildProcess.Result {
            do {
                return try await ChildProcess.run(
                    [executable, "ctl", "--config", workspace.config, "--timeout", "5"] + words, timeout: .seconds(10))
            } catch {
                throw DemoError("cannot run jarvis-voice ctl: \(error)")
            }
        }

        // The control socket answers once the service is up.
        while true {
            try check("waiting for the control socket")
            if try await ctl(["tap"]).status == 0 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        Self.say("demo: $ jarvis-voice ctl tap   (the button; the question is playing into the mic)")

        var polled: [String] = []
        while true {
            try check("waiting for the answer")
            let status = try await ctl(["status"])
            if status.status == 0, let state = JSONValue.parse(status.stdout)?["state"]?.stringValue {
                if polled.last != state { polled.append(state) }
                if state == "error" { throw DemoError("the conversation went to the error state") }
                if state == "idle", log.hasSpoken || polled.contains("ai_speaking") { break }
            }
            try await Task.sleep(for: .milliseconds(150))
        }
        log.pump()
        Self.say("demo: back to idle; stopping the service (SIGTERM)")
        service.signal(SIGTERM)
        let exit = await service.wait(timeout: .seconds(5))
        log.pump()
        guard let exit else { throw DemoError("the service did not stop within 5 s of SIGTERM") }
        guard exit == 0 else { throw DemoError("the service exited with status \(exit)") }
        return DemoRun(states: log.states.isEmpty ? polled : log.states, turnLine: log.turnLine)
    }

    static func seconds(_ duration: Duration) -> Double { duration.inSeconds }

    static func format(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    private func speak(_ text: String, rate: Int, in workspace: DemoWorkspace, name: String) async throws(DemoError) -> [Int16] {
        do throws(SpeechSynthesis.Failure) {
            return try await SpeechSynthesis.speak(text, rate: rate, directory: workspace.path, name: name)
        } catch {
            throw DemoError(error.description)
        }
    }
}
