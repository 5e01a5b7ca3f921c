import Basics

/// `what_time_is_it()`: the owner's local time, weekday and date, answered on the device from its clock
/// (no Jarvis call, no "thinking" earcon).
public struct WhatTimeIsItTool: FixedDefinitionTool {
    /// The wall clock, in the owner's time zone. Default: this machine's clock and zone.
    public let now: @Sendable () -> LocalTime

    public init(now: @escaping @Sendable () -> LocalTime = { LocalTime.systemNow() }) { self.now = now }

    public static let definition = ToolDefinition(
        name: "what_time_is_it",
        description: "Tells the current local time, weekday and date where this speaker is.",
        parameters: [], answersInstantly: true)

    public func run(_ arguments: ToolArguments) async -> ToolOutput {
        let local = now()
        return .success(
            JSONValue.object([
                "time": .string(local.time), "weekday": .string(local.weekdayName), "date": .string(local.date),
                "time_zone": .string(local.zoneName), "utc_offset": .string(local.utcOffset)
            ]).jsonText)
    }
}
