import Realtime

/// The tools registered with the Realtime session, and the dispatcher that runs a call by name. It builds
/// everything the session needs to know about them from their definitions: the `tools` array, the system
/// prompt (`instructions`) and the tools that answer at once (`quietToolNames`). A new tool is one file
/// plus one `register` line in the composition root.
public struct ToolRegistry: Sendable {
    public private(set) var tools: [String: any Tool] = [:]
    public private(set) var order: [String] = []

    public init(_ tools: [any Tool] = []) {
        for tool in tools { register(tool) }
    }

    /// Adds or replaces a tool by name.
    public mutating func register(_ tool: any Tool) {
        let name = tool.definition.name
        if tools[name] == nil { order.append(name) }
        tools[name] = tool
    }

    public var definitions: [ToolDefinition] { order.compactMap { tools[$0]?.definition } }

    /// The `tools` array for `session.update`.
    public var functionTools: [FunctionTool] { definitions.map(\.functionTool) }

    /// Tools that answer at once: calling only these plays no "thinking" earcon.
    public var quietToolNames: Set<String> { Set(definitions.filter(\.answersInstantly).map(\.name)) }

    /// The system prompt: `AssistantPrompt.preamble`, each tool's prompt section in registration order (with
    /// its acknowledgement rule for a model without preambles), the quick local tools by their descriptions,
    /// `AssistantPrompt.closing`.
    public func instructions(modelSpeaksPreambles: Bool) -> String {
        AssistantPrompt.instructions(for: definitions, modelSpeaksPreambles: modelSpeaksPreambles)
    }

    /// Runs one call. Unknown tools and invalid arguments become error outputs for the model, never a crash.
    public func dispatch(name: String, arguments: String) async -> ToolOutput {
        guard let tool = tools[name] else {
            return .failure("unknown tool \"\(name)\"; available: \(order.joined(separator: ", "))")
        }
        switch ToolArguments.validate(arguments, for: tool.definition) {
        case .failure(let error):
            return .failure("\(name): \(error.description)")
        case .success(let validated):
            if Task.isCancelled { return .failure("\(name) was cancelled") }
            return await tool.run(validated)
        }
    }
}
