/// What the endurance run recorded: one row per sample, one per turn, one per fault.
struct SampleRow {
    var at: Double
    var process: ProcessSample
    var state: String
    var mediaState: String
    var ducked: Bool?

    static let header = "t_s,rss_kib,pss_kib,anon_kib,pss_anon_kib,fds,threads,cpu_s,state,media_state,ducked"

    var csv: String {
        let p = process
        return "\(SoakNumber.fixed(at, 1)),\(p.rssKiB),\(p.pssKiB),\(p.anonKiB),\(p.pssAnonKiB),\(p.fds),\(p.threads),"
            + "\(SoakNumber.fixed(p.cpuSeconds, 2)),\(state),\(mediaState),\(ducked.map { $0 ? "1" : "0" } ?? "")"
    }
}

struct TurnResult {
    var index: Int
    var kind: SoakPlan.TurnKind
    var at: Double
    /// Why the turn failed; nil when it did what its kind promises.
    var problem: String?
    /// The turn never got an answer (no `ai_speaking`, or no `turn:` line).
    var lost = false
    /// The engine did not get back to `idle` in time.
    var stuck = false
    /// `status` still said `media.ducked: true` 5 s after the conversation ended.
    var leftDucked = false
    var firstAudioMs: Int?
    var answerAudioMs: Int?
    /// From the tap (or `ctl ask`) to `idle`.
    var secondsToIdle: Double?
    /// Jarvis was down during this turn.
    var jarvisDown = false
    /// The answer was cut by the user's speech (`ai_speaking -> user_speaking`).
    var cutByBargeIn = false

    static let header = "index,kind,t_s,ok,lost,stuck,left_ducked,first_audio_ms,answer_audio_ms,s_to_idle,jarvis_down,barge_in_cut,problem"

    var csv: String {
        func flag(_ value: Bool) -> String { value ? "1" : "0" }
        return "\(index),\(kind.rawValue),\(SoakNumber.fixed(at, 1)),\(flag(problem == nil)),\(flag(lost)),\(flag(stuck)),"
            + "\(flag(leftDucked)),\(firstAudioMs.map(String.init) ?? ""),\(answerAudioMs.map(String.init) ?? ""),"
            + "\(secondsToIdle.map { SoakNumber.fixed($0, 1) } ?? ""),\(flag(jarvisDown)),\(flag(cutByBargeIn)),"
            + "\"\((problem ?? "").replacing("\"", with: "'"))\""
    }
}

struct FaultResult {
    var fault: SoakPlan.Fault
    var at: Double
    var problem: String?
    var detail: String

    static let header = "t_s,fault,ok,detail"

    var csv: String {
        "\(SoakNumber.fixed(at, 1)),\(fault.rawValue),\(problem == nil ? 1 : 0),\"\((problem ?? detail).replacing("\"", with: "'"))\""
    }
}

enum SoakNumber {
    /// `value` with `digits` decimals, without Foundation's formatters.
    static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "nan" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int((abs(value) * scale).rounded())
        let whole = scaled / Int(scale)
        let fraction = scaled % Int(scale)
        var text = (value < 0 && scaled != 0 ? "-" : "") + String(whole)
        if digits > 0 {
            let digitsText = String(fraction)
            text += "." + String(repeating: "0", count: digits - digitsText.count) + digitsText
        }
        return text
    }
}
