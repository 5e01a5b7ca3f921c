/// The parts of the system prompt no tool owns. The tools' own text goes between them
/// (`ToolRegistry.instructions`), so the prompt always matches the registered tools.
public enum AssistantPrompt {
    public static let preamble = "You are the voice of Jarvis on a kitchen speaker."

    public static let quickToolsHeading = """
        # Quick local tools
        These answer at once on this device, without asking Jarvis: call them directly and do not say an \
        acknowledgement before them; after them, confirm in a few words, or answer from the result.
        """

    public static let closing = "Keep your own speech short: this is a speaker, not a screen."

    /// For a model that speaks its own preamble before a tool call: that preamble is the acknowledgement.
    public static let preambleRule = """
        # Before a tool call
        If you say anything before calling a tool, keep it to a few words; say no second acknowledgement.
        """

    /// The preamble, each tool's prompt section (in order) with its acknowledgement rule unless the model
    /// speaks preambles of its own (then `preambleRule` once), the quick tools by description, the closing.
    public static func instructions(for tools: [ToolDefinition], modelSpeaksPreambles: Bool) -> String {
        var sections = [preamble]
        for tool in tools {
            if let prompt = tool.prompt { sections.append(prompt) }
            if !modelSpeaksPreambles, let acknowledgement = tool.acknowledgement { sections.append(acknowledgement) }
        }
        if modelSpeaksPreambles, tools.contains(where: { $0.acknowledgement != nil }) { sections.append(preambleRule) }
        let quick = tools.filter(\.answersInstantly)
        if !quick.isEmpty {
            sections.append(([quickToolsHeading] + quick.map { "- \($0.name): \($0.description)" }).joined(separator: "\n"))
        }
        sections.append(closing)
        return sections.joined(separator: "\n\n")
    }
}
