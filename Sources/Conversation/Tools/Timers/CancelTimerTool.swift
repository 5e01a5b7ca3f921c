/// `cancel_timer(label | id)`: cancels timers and alarms by their label or id.
public struct CancelTimerTool: FixedDefinitionTool {
    public let timers: KitchenTimers

    public init(timers: KitchenTimers) { self.timers = timers }

    public static let definition = ToolDefinition(
        name: "cancel_timer",
        description: "Cancels a timer or alarm on this speaker, by its label (e.g. \"pasta\") or its id.",
        parameters: [
            .string("label", "The timer's label, e.g. \"pasta\".", required: false),
            .string("id", "The timer's id, from list_timers.", required: false)
        ],
        answersInstantly: true)

    public func run(_ arguments: ToolArguments) async -> ToolOutput {
        guard let key = arguments.string("id") ?? arguments.string("label") else {
            return .failure("cancel_timer needs a label or an id")
        }
        do throws(KitchenTimers.Failure) {
            let cancelled = try timers.cancel(key)
            return .success(#"{"cancelled":\#(cancelled.count)}"#)
        } catch {
            return .failure(error.description)
        }
    }
}
