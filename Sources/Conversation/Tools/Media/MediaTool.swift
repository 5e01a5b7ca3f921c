import Media

/// A media tool: a fixed definition, and `answer`, which returns the short JSON text the model speaks from.
/// A `MediaCommandError` (the player's, or a missing or refused argument) becomes the `{"error": ...}` output.
protocol MediaTool: FixedDefinitionTool {
    func answer(_ arguments: ToolArguments) async throws(MediaCommandError) -> String
}

extension MediaTool {
    func run(_ arguments: ToolArguments) async -> ToolOutput {
        do throws(MediaCommandError) {
            return .success(try await answer(arguments))
        } catch {
            return .failure(error.message)
        }
    }
}
