import Basics
import Glibc
import Realtime
import TestProcess

/// Runs the plan against the real service: turns of each kind, the faults, and the checks after each
/// (answered, back to `idle`, music no longer ducked). Single-task: only the sampler runs beside it.
final class SoakRig {
    struct Speech {
        /// 16 kHz mono PCM16 for the mic.
        var question: [Int16]
        var interruption: [Int16]
        var typedQuestion: String
    }

    let workspace: SoakWorkspace
    let executable: String
    let service: BackgroundProcess
    let standIns: SoakStandIns
    let speech: Speech
    let origin: ContinuousClock.Instant
    private var log: ServiceLogFollower
    private(set) var turns: [TurnResult] = []
    private(set) var faults: [FaultResult] = []

    init(
        workspace: SoakWorkspace, executable: String, service: BackgroundProcess, standIns: SoakStandIns,
        speech: Speech, origin: ContinuousClock.Instant
    ) {
        self.workspace = workspace
        self.executable = executable
        self.service = service
        self.standIns = standIns
        self.speech = speech
        self.origin = origin
        log = ServiceLogFollower(path: workspace.serviceLog)
    }

    var now: Double { SoakClock.seconds(ContinuousClock.now - origin) }
    var logErrorCount: Int { log.errorCount }
    var lastLogErrors: [String] { log.lastErrors }

    // MARK: - control socket

    func ctl(_ words: [String]) async -> ChildProcess.Result? {
        try? await ChildProcess.run([executable, "ctl", "--config", workspace.config, "--timeout", "5"] + words, timeout: .seconds(15))
    }

    func status() async -> JSONValue? {
        guard let result = await ctl(["status"]), result.status == 0 else { return nil }
        return JSONValue.parse(result.stdout)
    }

    static func ducked(_ status: JSONValue?) -> Bool? {
        guard case .bool(let ducked)? = status?["media"]?["ducked"] else { return nil }
        return ducked
    }

    /// Polls `status` until `condition` holds (every 250 ms); the status that satisfied it, or nil.
    func waitForStatus(seconds: Double, _ condition: (JSONValue) -> Bool) async -> JSONValue? {
        let deadline = now + seconds
        while now < deadline {
            if let status = await status(), condition(status) { return status }
            try? await Task.sleep(for: .milliseconds(250))
        }
        return nil
    }

    // MARK: - log

    /// Pumps the log every 50 ms until a state change after `mark` satisfies `condition`; its index.
    private func waitForState(after mark: Int, seconds: Double, _ condition: (ServiceLogFollower.StateChange) -> Bool) async -> Int? {
        let deadline = now + seconds
        while true {
            log.pump(now: now)
            if let index = log.states.indices.dropFirst(mark).first(where: { condition(log.states[$0]) }) { return index }
            if now >= deadline || service.exitStatus != nil { return nil }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    // MARK: - turns

    func run(_ turn: SoakPlan.Turn) async -> TurnResult {
        var result = TurnResult(index: turn.index, kind: turn.kind, at: now, jarvisDown: !standIns.jarvisIsUp)
        log.pump(now: now)
        let stateMark = log.states.count
        let turnMark = log.turns.count
        let started = now

        // Start: a tap (then speak once the service listens) or a typed question.
        if turn.kind == .typed {
            guard let asked = await ctl(["ask", speech.typedQuestion]), asked.status == 0 else {
                return failed(result, lost: true, "ctl ask failed")
            }
        } else {
            guard let tapped = await ctl(["tap"]), tapped.status == 0 else { return failed(result, lost: true, "ctl tap failed") }
            guard await waitForState(after: stateMark, seconds: 20, { $0.to == "listening" }) != nil else {
                return await recover(failed(result, lost: true, stuck: true, "not listening 20 s after the tap (state \(log.state))"))
            }
            do { try workspace.speak(speech.question) } catch { return failed(result, lost: true, "\(error)") }
        }

        // The answer starts; the kind's twist.
        guard
            let speaking = await waitForState(
                after: stateMark, seconds: 40,
                {
                    $0.to == "ai_speaking" || (turn.kind == .realtimeDrop && $0.to == "waiting_for_jarvis")
                })
        else {
            return await recover(failed(result, lost: true, "no answer within 40 s (state \(log.state))"))
        }
        var answersExpected = 1
        switch turn.kind {
        case .spoken, .typed:
            break
        case .bargeIn:
            // Talk over the answer ~0.8 s into it; the model answers the interruption. The cut answer
            // logs its `turn:` line marked `cut_by=barge_in`, the interruption's answer its own.
            try? await Task.sleep(for: .milliseconds(800))
            do { try workspace.speak(speech.interruption) } catch { return failed(result, "\(error)") }
            guard await waitForState(after: speaking + 1, seconds: 40, { $0.to == "ai_speaking" }) != nil else {
                return await recover(failed(result, lost: true, "no answer to the interruption within 40 s (state \(log.state))"))
            }
            result.cutByBargeIn = log.states.dropFirst(speaking).contains { $0.from == "ai_speaking" && $0.to == "user_speaking" }
            if result.cutByBargeIn { answersExpected = 2 }
        case .realtimeDrop:
            await standIns.realtime.perform(.dropConnection)
            answersExpected = 0
        }

        // Back to idle, answered, unducked.
        let lastSpeaking = log.states.indices.dropFirst(stateMark).last { log.states[$0].to == "ai_speaking" } ?? speaking
        guard await waitForState(after: lastSpeaking + 1, seconds: turn.kind == .realtimeDrop ? 60 : 45, { $0.to == "idle" }) != nil else {
            return await recover(
                failed(result, stuck: true, "not back to idle within \(turn.kind == .realtimeDrop ? 60 : 45) s (state \(log.state))"))
        }
        result.secondsToIdle = now - started
        let lines = log.turns.dropFirst(turnMark)
        result.firstAudioMs = lines.first?.firstAudioMs
        result.answerAudioMs = lines.first?.answerAudioMs
        if lines.count < answersExpected {
            result.lost = true
            result.problem = "\(lines.count) turn line(s) logged, expected \(answersExpected)"
        }
        if await waitForStatus(seconds: 5, { Self.ducked($0) == false }) == nil {
            result.leftDucked = true
            result.problem = (result.problem.map { $0 + "; " } ?? "") + "media still ducked 5 s after idle"
        }
        return result
    }

    private func failed(_ result: TurnResult, lost: Bool = false, stuck: Bool = false, _ problem: String) -> TurnResult {
        var result = result
        result.lost = result.lost || lost
        result.stuck = result.stuck || stuck
        result.problem = problem
        return result
    }

    /// After a failed turn: a tap ends whatever the engine is doing; give it 15 s to reach idle.
    private func recover(_ result: TurnResult) async -> TurnResult {
        var result = result
        if log.state != "idle" {
            let mark = log.states.count
            _ = await ctl(["tap"])
            if await waitForState(after: mark, seconds: 15, { $0.to == "idle" }) == nil { result.stuck = true }
        }
        return result
    }

    func record(_ turn: TurnResult) { turns.append(turn) }

    // MARK: - faults

    func inject(_ fault: SoakPlan.Fault, plan: SoakPlan) async -> FaultResult {
        let at = now
        switch fault {
        case .streamServerRestart:
            await standIns.stopRadioServer()
            try? await Task.sleep(for: .seconds(plan.streamOutage))
            do { try await standIns.startRadioServer() } catch {
                return FaultResult(fault: fault, at: at, problem: "the radio server did not restart: \(error)", detail: "")
            }
            // `status` keeps saying "playing" while the player reconnects: the proof is the new server's request.
            let back = now
            while standIns.radioRequests == 0, now < back + 90 { try? await Task.sleep(for: .milliseconds(100)) }
            guard standIns.radioRequests > 0 else {
                return FaultResult(fault: fault, at: at, problem: "the player did not reconnect within 90 s of the server's return", detail: "")
            }
            let reconnected = now - back
            guard await waitForStatus(seconds: 30, { $0["media"]?["state"]?.stringValue == "playing" }) != nil else {
                return FaultResult(fault: fault, at: at, problem: "the player reconnected but the radio is not playing", detail: "")
            }
            return FaultResult(
                fault: fault, at: at, problem: nil,
                detail:
                    "server away \(SoakNumber.fixed(plan.streamOutage, 0)) s; the player reconnected \(SoakNumber.fixed(reconnected, 1)) s after it returned"
            )
        case .jarvisDown:
            await standIns.stopJarvis()
            return FaultResult(fault: fault, at: at, problem: nil, detail: "Jarvis stopped for \(plan.jarvisOutageTurns) turns")
        case .jarvisUp:
            do { try await standIns.startJarvis() } catch {
                return FaultResult(fault: fault, at: at, problem: "Jarvis did not restart: \(error)", detail: "")
            }
            return FaultResult(fault: fault, at: at, problem: nil, detail: "Jarvis back at the same address")
        case .configReload:
            guard service.signal(SIGHUP) else { return FaultResult(fault: fault, at: at, problem: "the service is gone", detail: "") }
            try? await Task.sleep(for: .seconds(2))
            guard service.exitStatus == nil,
                await waitForStatus(seconds: 20, { $0["media"]?["state"]?.stringValue == "playing" && $0["state"]?.stringValue == "idle" }) != nil
            else {
                return FaultResult(fault: fault, at: at, problem: "after SIGHUP the service is not idle with the radio playing", detail: "")
            }
            return FaultResult(fault: fault, at: at, problem: nil, detail: "SIGHUP; idle, radio playing")
        case .stall:
            guard service.signal(SIGSTOP) else { return FaultResult(fault: fault, at: at, problem: "the service is gone", detail: "") }
            try? await Task.sleep(for: .seconds(SoakPlan.stallSeconds))
            guard service.signal(SIGCONT) else { return FaultResult(fault: fault, at: at, problem: "the service is gone", detail: "") }
            guard await waitForStatus(seconds: 20, { $0["media"]?["state"]?.stringValue == "playing" && $0["state"]?.stringValue == "idle" }) != nil
            else {
                return FaultResult(fault: fault, at: at, problem: "after the stall the service is not idle with the radio playing", detail: "")
            }
            return FaultResult(
                fault: fault, at: at, problem: nil, detail: "stopped \(SoakNumber.fixed(SoakPlan.stallSeconds, 0)) s (SIGSTOP); idle, radio playing")
        }
    }

    func record(_ fault: FaultResult) { faults.append(fault) }

    func pumpLog() { log.pump(now: now) }
    var turnLinesLogged: Int { log.turns.count }
}

enum SoakClock {
    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
