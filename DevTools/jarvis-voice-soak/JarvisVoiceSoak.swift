import ALSATestbed
import ArgumentParser
import Glibc
import Realtime
import TestProcess
import TestSupport

/// `jarvis-voice-soak`: the endurance run (development machines only; links the stand-ins).
///
/// Runs the `jarvis-voice` next to it (`run`, on paced test PCMs) against the in-process Realtime,
/// term-llm and radio stand-ins for `--seconds`: radio playing throughout, a turn every minute (spoken,
/// typed with `ctl ask`, with barge-in, with a Realtime drop), the radio server restarted, Jarvis down
/// for two turns, a SIGHUP reload. Samples the service's memory, descriptors, threads and CPU from /proc
/// and its `status`, and writes samples.csv, turns.csv, faults.csv and summary.txt into `--out`.
/// Exits 1 when a footprint trends upward after start-up, a turn is lost or stuck, music is left
/// ducked, or a fault is not recovered (rules: `SoakAnalysis`).
@main
struct JarvisVoiceSoak: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jarvis-voice-soak",
        abstract: "Endurance run of jarvis-voice run against stand-ins (development machines only).")

    @Option(help: ArgumentHelp("How long the scenario runs.", valueName: "SECONDS"))
    var seconds: Int = 3_600

    @Option(help: ArgumentHelp("Directory for the CSVs, the summary and the service log.", valueName: "DIR"))
    var out: String = "soak-results"

    @Option(help: ArgumentHelp("The jarvis-voice to run (default: the one next to this executable).", valueName: "PATH"))
    var service: String?

    func validate() throws {
        guard seconds >= 60, seconds <= 86_400 else { throw ValidationError("--seconds must be between 60 and 86400") }
    }

    func run() async throws {
        do {
            let analysis = try await soak()
            Glibc.exit(analysis.passed ? 0 : 1)
        } catch let error as SoakError {
            Self.say("jarvis-voice-soak: \(error)")
            Glibc.exit(2)
        }
    }

    static func say(_ line: String) {
        print(line)
        fflush(nil)
    }

    private func soak() async throws -> SoakAnalysis {
        let plan = SoakPlan(seconds: Double(seconds))
        guard let executable = service ?? ChildProcess.builtExecutable("jarvis-voice") else {
            throw SoakError("jarvis-voice is not next to jarvis-voice-soak; pass --service PATH")
        }
        guard let plugin = PacedPlugin.libraryPath else { throw SoakError("the paced test PCM plugin is neither built nor buildable") }
        let workspace = try SoakWorkspace(results: out)
        defer { workspace.remove() }

        Self.say(
            "soak: \(seconds) s, a turn every \(SoakNumber.fixed(plan.turnInterval, 0)) s, samples every \(SoakNumber.fixed(plan.sampleInterval, 0)) s"
        )
        let speech: SoakRig.Speech
        var script = RealtimeStandInScript()
        do throws(SpeechSynthesis.Failure) {
            speech = SoakRig.Speech(
                question: try await Self.padded(
                    SpeechSynthesis.speak("what is on my calendar today", rate: 16_000, directory: workspace.path, name: "question")),
                interruption: try await Self.padded(
                    SpeechSynthesis.speak("stop, what time is it", rate: 16_000, directory: workspace.path, name: "interruption")),
                typedQuestion: "when does the bakery close today")
            script.answerAudio = try await SpeechSynthesis.speak(
                "You have two things today: the dentist at ten, and dinner with Sam at seven. The bakery closes at six.",
                rate: 24_000, directory: workspace.path, name: "answer")
        } catch {
            throw SoakError("espeak-ng: \(error)")
        }
        script.answerTranscript = "You have two things today."
        let radioMP3: [UInt8]
        do { radioMP3 = try MediaFixtures.sineMP3(seconds: 8, frequency: 440, sampleRate: 44_100) } catch {
            throw SoakError("sox: \(error)")
        }
        let standIns: SoakStandIns
        do { standIns = try await SoakStandIns(script: script, radioMP3: radioMP3) } catch {
            throw SoakError("stand-ins: \(error)")
        }
        try workspace.writeConfiguration(
            realtimeURL: standIns.realtime.url, apiKey: script.apiKey, jarvisURL: standIns.jarvisURL,
            jarvisToken: TermLLMStandIn.Options().token, pluginPath: plugin)

        let process: BackgroundProcess
        do {
            process = try BackgroundProcess(
                [executable, "run", "--config", workspace.config], environment: workspace.serviceEnvironment,
                stderr: .file(workspace.serviceLog))
        } catch {
            throw SoakError("cannot start \(executable): \(error)")
        }
        let rig = SoakRig(
            workspace: workspace, executable: executable, service: process, standIns: standIns, speech: speech,
            origin: ContinuousClock.now)
        defer { if process.exitStatus == nil { process.signal(SIGKILL) } }
        guard await rig.waitForStatus(seconds: 30, { _ in true }) != nil else { throw SoakError("the service did not answer `status` within 30 s") }
        guard let played = await rig.ctl(["play", standIns.radioURL]), played.status == 0 else { throw SoakError("ctl play failed") }
        guard await rig.waitForStatus(seconds: 30, { $0["media"]?["state"]?.stringValue == "playing" }) != nil else {
            throw SoakError("the radio did not start within 30 s")
        }
        Self.say("soak: radio playing from \(standIns.radioURL); service pid \(process.pid)")

        let origin = ContinuousClock.now
        let sampler = SoakSampler(
            pid: process.pid, executable: executable, config: workspace.config, interval: plan.sampleInterval, origin: origin,
            path: workspace.result("samples.csv"))
        let sampling = Task { await sampler.run() }
        var died: Int32?
        for step in plan.steps {
            let at = SoakClock.seconds(ContinuousClock.now - origin)
            if step.at > at { try? await Task.sleep(for: .milliseconds(Int((step.at - at) * 1_000))) }
            if let status = process.exitStatus {
                died = status
                break
            }
            switch step.action {
            case .turn(let turn):
                let result = await rig.run(turn)
                rig.record(result)
                Self.say(
                    "soak: \(SoakNumber.fixed(SoakClock.seconds(ContinuousClock.now - origin), 0)) s turn \(turn.index) \(turn.kind.rawValue): "
                        + (result.problem
                            ?? "ok, first audio \(result.firstAudioMs.map(String.init) ?? "-") ms, idle after \(SoakNumber.fixed(result.secondsToIdle ?? 0, 1)) s")
                )
            case .fault(let fault):
                let result = await rig.inject(fault, plan: plan)
                rig.record(result)
                Self.say(
                    "soak: \(SoakNumber.fixed(SoakClock.seconds(ContinuousClock.now - origin), 0)) s \(fault.rawValue): \(result.problem ?? result.detail)"
                )
            }
        }
        let remaining = plan.seconds - SoakClock.seconds(ContinuousClock.now - origin)
        if died == nil, remaining > 0 { try? await Task.sleep(for: .milliseconds(Int(remaining * 1_000))) }
        sampling.cancel()
        let samples = await sampling.value

        rig.pumpLog()
        var analysis = SoakAnalysis(samples: samples, turns: rig.turns, faults: rig.faults, seconds: plan.seconds)
        if let status = died ?? process.exitStatus {
            analysis.failures.append("the service exited with status \(status) during the run")
        } else {
            process.signal(SIGTERM)
            let exit = await process.wait(timeout: .seconds(10))
            if exit != 0 {
                analysis.failures.append("the service did not exit 0 within 10 s of SIGTERM (\(exit.map(String.init) ?? "still running"))")
            }
        }
        await standIns.shutdown()
        try writeResults(workspace: workspace, rig: rig, analysis: analysis, samples: samples, plan: plan)
        return analysis
    }

    private func writeResults(workspace: SoakWorkspace, rig: SoakRig, analysis: SoakAnalysis, samples: [SampleRow], plan: SoakPlan) throws(SoakError)
    {
        try workspace.write(([TurnResult.header] + rig.turns.map(\.csv)).joined(separator: "\n") + "\n", to: workspace.result("turns.csv"))
        try workspace.write(([FaultResult.header] + rig.faults.map(\.csv)).joined(separator: "\n") + "\n", to: workspace.result("faults.csv"))
        var summary = ["jarvis-voice-soak: \(seconds) s, \(samples.count) samples, \(rig.turns.count) turns"]
        summary += analysis.lines
        if let first = samples.first, let last = samples.last, last.at > first.at {
            let cpu = (last.process.cpuSeconds - first.process.cpuSeconds) / (last.at - first.at) * 100
            summary.append("cpu: \(SoakNumber.fixed(cpu, 1)) % of one core on average over the run (radio throughout, turns, faults)")
        }
        summary.append("service log: \(rig.logErrorCount) error-level lines (expected ones at the Realtime drops and while Jarvis is down)")
        summary.append(analysis.passed ? "PASS" : "FAIL")
        summary += analysis.failures.map { "  - \($0)" }
        try workspace.write(summary.joined(separator: "\n") + "\n", to: workspace.result("summary.txt"))
        Self.say("")
        for line in summary { Self.say(line) }
    }

    /// Speech with 300 ms of silence before and 1.5 s after (the end of speech is heard as silence).
    static func padded(_ speech: [Int16]) -> [Int16] {
        [Int16](repeating: 0, count: 4_800) + speech + [Int16](repeating: 0, count: 24_000)
    }
}
