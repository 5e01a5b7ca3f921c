import Basics

/// `set_timer(seconds, label?)`: a kitchen timer on this speaker, which rings here when it is done.
public struct SetTimerTool: FixedDefinitionTool {
    public let timers: KitchenTimers

    public init(timers: KitchenTimers) { self.timers = timers }

    public static let definition = ToolDefinition(
        name: "set_timer",
        description: "Sets a timer on this speaker that rings when the time is up, e.g. ten minutes for the pasta.",
        parameters: [
            .number("seconds", "How long the timer runs, in seconds (1 to 86400).", minimum: 1, maximum: 86_400),
            .string("label", "A short name for what it is for, e.g. \"pasta\"; leave out when none was said.", required: false)
        ],
        prompt: """
            # Timers and alarms
            Timers and alarms live on this speaker and ring here: for "set a timer", "wake me at seven", "how \
            long is left", "cancel the pasta timer", call set_timer, set_alarm, list_timers or cancel_timer \
            yourself, at once and without an acknowledgement first. Never ask Jarvis about timers or alarms. \
            After the call, confirm in a few words ("Ten minutes for the pasta.").
            """,
        answersInstantly: true)

    public func run(_ arguments: ToolArguments) async -> ToolOutput {
        guard let seconds = arguments.number("seconds"), seconds.isFinite, seconds >= 1, seconds <= 86_400 else {
            return .failure("set_timer needs seconds from 1 to 86400")
        }
        do throws(KitchenTimers.Failure) {
            let timer = try timers.add(seconds: Int(seconds.rounded()), label: TimerToolText.label(arguments))
            return .success(TimerToolText.json(timer, secondsLeft: Int(seconds.rounded())).jsonText)
        } catch {
            return .failure(error.description)
        }
    }
}

/// The timer tools' shared reading of a label and writing of a timer.
enum TimerToolText {
    /// The label argument, trimmed, nil when empty or absent.
    static func label(_ arguments: ToolArguments) -> String? {
        guard let text = arguments.string("label")?.trimmed(), !text.isEmpty else { return nil }
        return String(text.prefix(60))
    }

    /// `{"id", "label", "kind", "seconds_left", "left"}` for the model.
    static func json(_ timer: KitchenTimer, secondsLeft: Int) -> JSONValue {
        .object([
            "id": .string(timer.id), "label": timer.label.map(JSONValue.string) ?? .null, "kind": .string(timer.kind.rawValue),
            "seconds_left": .number(Double(secondsLeft)), "left": .string(TimerDuration.clock(secondsLeft))
        ])
    }
}
