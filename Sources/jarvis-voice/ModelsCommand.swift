import ArgumentParser
import Realtime

/// `jarvis-voice models`: the Realtime models this release knows, where each stands today, and what each
/// costs for what the appliance does (`TypicalUsage`).
struct ModelsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract: "List the Realtime models this release knows, with their status and estimated cost.",
        discussion: """
            Costs are estimates in US dollars from OpenAI's token prices: a minute of you talking, a minute \
            of the assistant talking, one question answered through Jarvis (5 s asked, a short \
            acknowledgement, a 10 s answer), a DJ interlude and a `ctl say`. Set the model with \
            [realtime] model in the configuration file.
            """
    )

    func run() {
        let today = CalendarDay.today()
        let header = ["model", "status", "reasoning", "listening/min", "speaking/min", "question", "dj interlude", "say"]
        let rows = RealtimeModels.all.map { model -> [String] in
            let status: String =
                switch model.lifecycle(on: today) {
                case .current, .unknown: model.id == RealtimeModels.defaultID ? "current (default)" : "current"
                case .deprecated(let day, let replacement): "shuts down \(day): use \(replacement)"
                case .shutDown(let day, let replacement): "shut down \(day): use \(replacement)"
                }
            let uses = [TypicalUsage.listeningMinute, TypicalUsage.speakingMinute, TypicalUsage.question, TypicalUsage.djInterlude]
            let prices = (uses + [TypicalUsage.say]).map { Self.dollars(model.pricing.cost(of: $0)) }
            return [model.id, status, model.reasons ? "yes" : "no"] + prices
        }
        for line in Self.columns([header] + rows) { print(line) }
    }

    /// `$0.0066`: four decimals, enough to tell the models apart at these amounts.
    static func dollars(_ value: Double) -> String {
        let tenThousandths = Int((value * 10_000).rounded())
        let fraction = String(tenThousandths % 10_000)
        return "$\(tenThousandths / 10_000).\(String(repeating: "0", count: 4 - fraction.count))\(fraction)"
    }

    /// Left-aligned columns two spaces apart.
    static func columns(_ rows: [[String]]) -> [String] {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count + 2)
            }.joined()
        }
    }
}
