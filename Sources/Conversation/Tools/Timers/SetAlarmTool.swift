/// `set_alarm(time, label?)`: an alarm at a time of day on this speaker's clock (the next time it comes).
public struct SetAlarmTool: FixedDefinitionTool {
    public let timers: KitchenTimers

    public init(timers: KitchenTimers) { self.timers = timers }

    public static let definition = ToolDefinition(
        name: "set_alarm",
        description: "Sets an alarm on this speaker for the next time the local clock shows the given time, e.g. \"07:00\".",
        parameters: [
            .string("time", "The time of day, 24-hour HH:MM, e.g. \"07:00\" or \"18:30\"."),
            .string("label", "A short name, e.g. \"wake up\"; leave out when none was said.", required: false)
        ],
        answersInstantly: true)

    public func run(_ arguments: ToolArguments) async -> ToolOutput {
        guard let time = arguments.string("time") else { return .failure("set_alarm needs a time like 07:00") }
        do throws(KitchenTimers.Failure) {
            let alarm = try timers.addAlarm(at: time, label: TimerToolText.label(arguments))
            let left = timers.list().first { $0.timer.id == alarm.id }?.secondsLeft ?? 0
            return .success(TimerToolText.json(alarm, secondsLeft: left).jsonText)
        } catch {
            return .failure(error.description)
        }
    }
}
