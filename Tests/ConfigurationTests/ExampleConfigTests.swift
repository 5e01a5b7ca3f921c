import Testing
@testable import Configuration

/// `systemd/jarvis-voice.toml.example` lists every key commented out with its default: uncommenting
/// it must give exactly the defaults, and it must mention every key the loader reads.
@Suite struct ExampleConfigTests {
    /// `# [section]` and `# key = value` lines become live; explanations stay comments.
    static func uncommented(_ example: String) -> String {
        example.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard line.hasPrefix("# ") else { return String(line) }
            let rest = line.dropFirst(2)
            let isHeader = rest.hasPrefix("[") && rest.hasSuffix("]") && !rest.contains(" ")
            let isAssignment = rest.firstRange(of: " = ").map { range in
                rest[..<range.lowerBound].allSatisfy { $0 == "_" || ($0.isLetter && $0.isLowercase) }
            } ?? false
            return isHeader || isAssignment ? String(rest) : String(line)
        }.joined(separator: "\n")
    }

    @Test func exampleEqualsDefaults() throws {
        let example = try #require(repositoryFile("systemd/jarvis-voice.toml.example"))
        let text = Self.uncommented(example)
        let table = try TOMLParser.parse(text)
        var problems: [ConfigProblem] = []
        var readKeys: Set<String> = []
        let config = JarvisVoiceConfig(toml: table, problems: &problems, readKeys: &readKeys)
        #expect(problems == [])
        #expect(config == JarvisVoiceConfig())

        var exampleKeys: Set<String> = []
        for entry in table.entries {
            guard case .table(let section) = entry.value else { continue }
            for key in section.keys { exampleKeys.insert("\(entry.key).\(key)") }
        }
        // Keys without a default (unset = feature off) appear only as "e.g." text.
        let optionalKeys: Set<String> = ["audio.reference_channel", "led.line"]
        #expect(readKeys.subtracting(exampleKeys) == optionalKeys)
        for key in optionalKeys {
            let name = key.split(separator: ".")[1]
            #expect(example.contains("e.g. \(name) = "), "example should show \(key) as e.g.")
        }
        #expect(readKeys.count == 64)
    }

    @Test func exampleAsShippedIsAllDefaults() throws {
        let example = try #require(repositoryFile("systemd/jarvis-voice.toml.example"))
        let (config, problems) = ConfigLoader.decode(example)
        #expect(problems.isEmpty)
        #expect(config == JarvisVoiceConfig())
    }
}
