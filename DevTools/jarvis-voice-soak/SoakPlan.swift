/// What the endurance run does and when, scaled to its length: a turn every `turnInterval` (one hour:
/// every minute), a Realtime drop on every `dropEvery`-th turn (one hour: every 10 minutes), and the
/// faults once each (stalls four times), between turns, at fixed fractions of the run. Pure: the driver
/// executes it.
struct SoakPlan: Equatable {
    enum TurnKind: String, Equatable {
        /// Tap, then the question spoken into the mic; the model calls ask_jarvis, then answers.
        case spoken
        /// Spoken, and the user talks over the answer (barge-in): the answer is cut, a second one follows.
        case bargeIn = "barge_in"
        /// `ctl ask TEXT`: a typed question through the control socket.
        case typed
        /// Spoken, and the Realtime connection drops mid-answer (no close frame).
        case realtimeDrop = "realtime_drop"
    }

    enum Fault: String, Equatable {
        /// The radio's stream server goes away for `streamOutage` and comes back at the same URL.
        case streamServerRestart = "stream_server_restart"
        /// Jarvis (term-llm) stops answering; `jarvisOutageTurns` turns ask it while it is down.
        case jarvisDown = "jarvis_down"
        case jarvisUp = "jarvis_up"
        /// SIGHUP: the service reloads its configuration.
        case configReload = "config_reload"
        /// SIGSTOP for `stallSeconds`, then SIGCONT: the whole service stalls, as on an overloaded box
        /// (both devices run into an xrun; the radio falls that far behind its live stream for good).
        case stall
    }

    struct Turn: Equatable {
        var index: Int
        var kind: TurnKind
        /// Seconds after the radio started.
        var at: Double
    }

    struct Step: Equatable {
        enum Action: Equatable {
            case turn(Turn)
            case fault(Fault)
        }
        var at: Double
        var action: Action
    }

    let seconds: Double
    let turnInterval: Double
    let sampleInterval: Double
    let dropEvery: Int
    static let jarvisOutageTurns = 2
    var jarvisOutageTurns: Int { Self.jarvisOutageTurns }
    var streamOutage: Double { min(10, turnInterval / 3) }
    static let stallSeconds = 5.0
    let steps: [Step]

    init(seconds: Double) {
        self.seconds = seconds
        let long = seconds >= 1_800
        let turnInterval = long ? 60 : max(18, seconds / 10)
        self.turnInterval = turnInterval
        sampleInterval = long ? 10 : max(2, min(10, seconds / 36))
        let dropEvery = long ? 10 : 6
        self.dropEvery = dropEvery
        let count = max(1, Int(seconds / turnInterval))
        var steps: [Step] = []
        let rotation: [TurnKind] = [.spoken, .typed, .bargeIn, .spoken]
        for index in 0..<count {
            let kind = index % dropEvery == dropEvery - 1 ? .realtimeDrop : rotation[index % rotation.count]
            let at = (Double(index) + 0.3) * turnInterval
            steps.append(Step(at: at, action: .turn(Turn(index: index, kind: kind, at: at))))
        }
        // Faults land between turns (at 0.75 of an interval, after the turn before has ended).
        func between(_ fraction: Double) -> Double { (Double(Int(Double(count) * fraction)) + 0.75) * turnInterval }
        let jarvisDown = between(0.45)
        steps.append(Step(at: between(0.25), action: .fault(.streamServerRestart)))
        steps.append(Step(at: jarvisDown, action: .fault(.jarvisDown)))
        steps.append(Step(at: jarvisDown + Double(Self.jarvisOutageTurns) * turnInterval, action: .fault(.jarvisUp)))
        steps.append(Step(at: between(0.7), action: .fault(.configReload)))
        // Stalls after start-up only (10-35 % of the run is the memory baseline), so that anything the
        // lag they leave behind makes the service hold shows up in the last quarter.
        for fraction in [0.4, 0.55, 0.8, 0.9] {
            steps.append(Step(at: between(fraction), action: .fault(.stall)))
        }
        self.steps = steps.filter { $0.at < seconds }.sorted { $0.at < $1.at }
    }

    var turns: [Turn] {
        steps.compactMap { if case .turn(let turn) = $0.action { turn } else { nil } }
    }
}
