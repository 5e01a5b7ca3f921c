import Realtime

/// Sends one request to Jarvis and returns the answer shaped for voice (or a spoken failure message).
/// Implemented by the Jarvis client; failures are answers too (timeout, offline, auth), never thrown.
public protocol JarvisAsking: Sendable {
    func ask(_ query: String) async -> ToolOutput
}

/// `ask_jarvis(query)`: the one tool every real request goes through (thin-router pattern).
public struct AskJarvisTool: Tool {
    public let jarvis: any JarvisAsking

    public init(jarvis: any JarvisAsking) { self.jarvis = jarvis }

    public static let definition = ToolDefinition(
        name: "ask_jarvis",
        description: "Routes any meaningful user request to the Jarvis AI agent backend running on Sam's homelab. Use this tool for EVERY real question, task, or request. Do not attempt to answer from your own knowledge.",
        parameters: [
            .string(
                "query",
                "The user's complete request in natural language, including all relevant context they stated (names, dates, quantities, locations). Do not abbreviate or reframe.")
        ])

    public var definition: ToolDefinition { Self.definition }

    public func run(_ arguments: ToolArguments) async -> ToolOutput {
        guard let query = arguments.string("query") else { return .failure("ask_jarvis needs a query") }
        return await jarvis.ask(query)
    }
}
