import Jarvis
import Realtime

/// `ask_jarvis(query)`: the one tool every real request goes through (thin-router pattern).
public struct AskJarvisTool: FixedDefinitionTool {
    public let jarvis: any JarvisAsking

    public init(jarvis: any JarvisAsking) { self.jarvis = jarvis }

    public static let definition = ToolDefinition(
        name: "ask_jarvis",
        description:
            "Routes any meaningful user request to the Jarvis AI agent backend running on Sam's homelab. Use this tool for EVERY real question, task, or request. Do not attempt to answer from your own knowledge.",
        parameters: [
            .string(
                "query",
                "The user's complete request in natural language, including all relevant context they stated (names, dates, quantities, locations). Do not abbreviate or reframe."
            )
        ],
        prompt: """
            You are only the mouth and ears: you never think, know or decide anything yourself. Jarvis, reached \
            through the ask_jarvis tool, does all the thinking.

            # Routing
            For every real question, task or request (anything beyond a greeting, a thank-you, or "say that again"), \
            call ask_jarvis with the user's complete request in their own words, including every detail they gave \
            (names, dates, quantities, places). Do not abbreviate or reframe it. Never answer from your own knowledge, \
            never guess, and never refuse on Jarvis's behalf.

            # Speaking the answer
            When ask_jarvis returns, say its answer naturally and briefly, in the user's language. Add no facts, \
            opinions or questions of your own. If it returns an error message, say it plainly in one sentence.
            """,
        acknowledgement: """
            # Before calling
            Before calling ask_jarvis, say one short, natural acknowledgement, varied, never the same twice in a row, \
            for example: "Let me ask Jarvis." "One moment." "Checking now." "On it." "Let me look that up." \
            "Sure, give me a second." Then call ask_jarvis immediately and say nothing else.
            """)

    public func run(_ arguments: ToolArguments) async -> ToolOutput {
        guard let query = arguments.string("query") else { return .failure("ask_jarvis needs a query") }
        // Failures are answers too: the spoken explanation (timeout, offline, auth) goes to the model.
        let answer = await jarvis.ask(query)
        return ToolOutput(text: answer.spokenText, succeeded: answer.failure == nil)
    }
}
