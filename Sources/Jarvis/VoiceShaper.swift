/// Turns Jarvis's Markdown into something a voice can read: no headings, bullets, emphasis,
/// code, tables or link syntax; lines become sentences; long answers are cut near `maxWords`
/// (at a sentence end when one is close) with an offer to elaborate.
public struct VoiceShaper: Sendable {
    public var maxWords: Int
    public var elaborationOffer: String
    /// Said where a fenced code block was left out.
    public var codeBlockNote: String

    public init(
        maxWords: Int = 150, elaborationOffer: String = "I have more details if you want them.",
        codeBlockNote: String = "I've left out a code block."
    ) {
        self.maxWords = maxWords
        self.elaborationOffer = elaborationOffer
        self.codeBlockNote = codeBlockNote
    }

    public func shape(_ text: String) -> String {
        capped(stripMarkdown(text))
    }

    // MARK: markdown

    public func stripMarkdown(_ text: String) -> String {
        var sentences: [String] = []
        var inFence = false
        var notedFence = false
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            let line = rawLine.drop { $0 == " " || $0 == "\t" }
            if line.hasPrefix("```") || line.hasPrefix("~~~") {
                inFence.toggle()
                if inFence && !notedFence {
                    sentences.append(codeBlockNote)
                    notedFence = true
                }
                continue
            }
            if inFence { continue }
            if let cleaned = spokenLine(Substring(line)) { sentences.append(cleaned) }
        }
        return sentences.joined(separator: " ")
    }

    /// One Markdown line as spoken text, or nil when nothing is left.
    private func spokenLine(_ line: Substring) -> String? {
        var body = line
        // Blockquote markers.
        while body.hasPrefix(">") { body = body.dropFirst().drop { $0 == " " } }
        // Horizontal rules: ---, ***, ___ (three or more, spaces allowed).
        let ruleChars = body.filter { $0 != " " }
        if ruleChars.count >= 3, let first = ruleChars.first, "-*_".contains(first), ruleChars.allSatisfy({ $0 == first }) {
            return nil
        }
        // Tables: separator rows vanish, cells become a comma list.
        if body.hasPrefix("|") {
            let cells = body.split(separator: "|").map { String($0).trimmedSpaces }.filter { !$0.isEmpty }
            if cells.allSatisfy({ $0.allSatisfy { "-:".contains($0) || $0 == " " } }) { return nil }
            return sentence(cells.map(inline).joined(separator: ", "))
        }
        // Headings.
        if body.hasPrefix("#") {
            let hashes = body.prefix { $0 == "#" }
            if hashes.count <= 6, body.dropFirst(hashes.count).first.map({ $0 == " " }) ?? true {
                body = body.dropFirst(hashes.count).drop { $0 == " " }
                while body.hasSuffix("#") || body.hasSuffix(" ") { body = body.dropLast() }
            }
        }
        // Bullets and numbered items (task list boxes too).
        if let marker = body.first, "-*+".contains(marker), body.dropFirst().first == " " {
            body = body.dropFirst(2)
        } else {
            let digits = body.prefix { $0.isNumber }
            if !digits.isEmpty, digits.count <= 3 {
                let after = body.dropFirst(digits.count)
                if let punctuation = after.first, punctuation == "." || punctuation == ")", after.dropFirst().first == " " {
                    body = after.dropFirst(2)
                }
            }
        }
        if body.hasPrefix("[ ] ") || body.hasPrefix("[x] ") || body.hasPrefix("[X] ") { body = body.dropFirst(4) }
        let text = inline(String(body)).trimmedSpaces
        return text.isEmpty ? nil : sentence(text)
    }

    /// Ends a line with punctuation so the voice pauses between former lines.
    private func sentence(_ text: String) -> String {
        guard let last = text.last else { return text }
        return ".!?:;,".contains(last) ? text : text + "."
    }

    /// Inline syntax: images and links keep their text, code/emphasis/strikethrough markers and
    /// HTML tags go, autolinks are dropped.
    func inline(_ text: String) -> String {
        let characters = Array(text)
        var out = ""
        var index = 0
        func isWordCharacter(_ position: Int) -> Bool {
            position >= 0 && position < characters.count && (characters[position].isLetter || characters[position].isNumber)
        }
        while index < characters.count {
            let character = characters[index]
            switch character {
            case "!" where index + 1 < characters.count && characters[index + 1] == "[":
                if let (label, next) = link(characters, at: index + 1) {
                    out += label
                    index = next
                    continue
                }
                out.append(character)
            case "[":
                if let (label, next) = link(characters, at: index) {
                    out += label
                    index = next
                    continue
                }
                out.append(character)
            case "<":
                if let close = characters[index...].firstIndex(of: ">"), close - index < 200 {
                    let inner = String(characters[(index + 1)..<close])
                    let isTag = inner.first.map { $0.isLetter || $0 == "/" } ?? false
                    if inner.contains("://") || inner.hasPrefix("mailto:") || (isTag && !inner.contains("<")) {
                        index = close + 1
                        continue
                    }
                }
                out.append(character)
            case "*", "`":
                break
            case "~" where index + 1 < characters.count && characters[index + 1] == "~":
                index += 2
                continue
            case "_":
                // Emphasis only at a word boundary; snake_case stays.
                if isWordCharacter(index - 1) && isWordCharacter(index + 1) { out.append(character) }
            default:
                out.append(character)
            }
            index += 1
        }
        return out.collapsedSpaces
    }

    /// `[label](target)` starting at `open`: the label and the index after `)`.
    private func link(_ characters: [Character], at open: Int) -> (String, Int)? {
        guard let close = characters[open...].firstIndex(of: "]"), close + 1 < characters.count, characters[close + 1] == "(",
            let end = characters[(close + 1)...].firstIndex(of: ")")
        else { return nil }
        return (inline(String(characters[(open + 1)..<close])), end + 1)
    }

    // MARK: length

    public func capped(_ text: String) -> String {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
        guard words.count > maxWords else { return words.joined(separator: " ") }
        var kept = Array(words.prefix(maxWords))
        // Prefer ending on a sentence if one ends in the last 40% of the budget.
        if let lastEnd = kept.lastIndex(where: { $0.last.map { ".!?".contains($0) } ?? false }), lastEnd + 1 >= maxWords * 6 / 10 {
            kept = Array(kept.prefix(lastEnd + 1))
            return kept.joined(separator: " ") + " " + elaborationOffer
        }
        var cut = kept.joined(separator: " ")
        while let last = cut.last, ",;:-".contains(last) { cut.removeLast() }
        return cut + "... " + elaborationOffer
    }
}

extension String {
    var trimmedSpaces: String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[start...end])
    }

    var collapsedSpaces: String {
        split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }
}
