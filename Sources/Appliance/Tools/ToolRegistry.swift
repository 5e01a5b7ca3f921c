import Realtime

/// The tools registered with the Realtime session, and the dispatcher that runs a call by name.
/// `ask_jarvis` is registered first; media tools (play_audio, pause_playback, ...) are added by the media layer.
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
