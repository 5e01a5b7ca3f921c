import Basics

/// `list_timers()`: the timers and alarms running on this speaker, soonest first.
public struct ListTimersTool: FixedDefinitionTool {
    public let timers: KitchenTimers

    public init(timers: KitchenTimers) { self.timers = timers }

    public static let definition = ToolDefinition(
        name: "list_timers",
        description: "Lists the timers and alarms running on this speaker with the time left on each.",
        parameters: [], answersInstantly: true)

    public func run(_ arguments: ToolArguments) async -> ToolOutput {
        let running = timers.list().map { TimerToolText.json($0.timer, secondsLeft: $0.secondsLeft) }
        return .success(JSONValue.object(["timers": .array(running)]).jsonText)
    }
}
