/// Collects answer text from stream events; knows which part to speak.
struct AnswerAccumulator {
    private(set) var fullText = ""
    private(set) var textAfterLastTool = ""
    private(set) var toolCalls = 0

    mutating func add(_ text: String) {
        fullText += text
        textAfterLastTool += text
    }

    mutating func toolCalled() {
        toolCalls += 1
        textAfterLastTool = ""
    }

    /// The answer: the text after the last tool call when asked to drop preambles and there is
    /// some, else everything.
    func answer(droppingPreamble: Bool) -> String {
        if droppingPreamble, toolCalls > 0, textAfterLastTool.contains(where: { !$0.isWhitespace }) {
            return textAfterLastTool
        }
        return fullText
    }
}
