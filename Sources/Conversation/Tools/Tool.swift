import Basics
import Realtime

/// A tool the model can call. Implementations run in Swift concurrency and must honour task cancellation
/// (a tap cancels a pending Jarvis call).
public protocol Tool: Sendable {
    var definition: ToolDefinition { get }
    func run(_ arguments: ToolArguments) async -> ToolOutput
}

/// A tool whose definition is fixed (all of the service's): `static let definition` is all it writes.
public protocol FixedDefinitionTool: Tool {
    static var definition: ToolDefinition { get }
}

extension FixedDefinitionTool {
    public var definition: ToolDefinition { Self.definition }
}

/// What goes back to the model as `function_call_output.output` (always a string), and whether it is a
/// real result or a spoken failure.
public struct ToolOutput: Sendable, Equatable {
    public var text: String
    public var succeeded: Bool

    public init(text: String, succeeded: Bool) {
        self.text = text
        self.succeeded = succeeded
    }

    public static func success(_ text: String) -> ToolOutput { ToolOutput(text: text, succeeded: true) }

    /// A failure the model can say out loud: `{"error": "..."}`.
    public static func failure(_ message: String) -> ToolOutput {
        ToolOutput(text: JSONValue.object(["error": .string(message)]).jsonText, succeeded: false)
    }
}
