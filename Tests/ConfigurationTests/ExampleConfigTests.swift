import TestProcess
import Testing

@testable import Configuration

/// `systemd/jarvis-voice.toml.example` is the shipped configuration: set for the recommended ReSpeaker,
/// `[jarvis] url` left for the owner, every other key commented out with its default. Uncommenting it
/// must change nothing but the URL, and it must mention every key the loader reads.
@Suite struct ExampleConfigTests {
    /// The defaults with the ReSpeaker's sound settings: what the example sets.
    static var respeaker: JarvisVoiceConfig {
        var config = JarvisVoiceConfig()
        config.audio.captureDevice = "hw:respeaker"
        config.audio.playbackDevice = "plughw:respeaker"
        config.audio.captureChannels = 6
        config.audio.micChannel = 0
        config.audio.referenceChannel = 5
        return config
    }

    /// `# [section]` and `# key = value` lines become live; explanations stay comments.
    static func uncommented(_ example: String) -> String {
        example.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard line.hasPrefix("# ") else { return String(line) }
            let rest = line.dropFirst(2)
            let isHeader = rest.hasPrefix("[") && rest.hasSuffix("]") && !rest.contains(" ")
            let isAssignment =
                rest.firstRange(of: " = ").map { range in
                    rest[..<range.lowerBound].allSatisfy { $0 == "_" || ($0.isLetter && $0.isLowercase) }
                } ?? false
            return isHeader || isAssignment ? String(rest) : String(line)
        }.joined(separator: "\n")
    }

    @Test func uncommentedItChangesNothingButTheURL() throws {
        let example = try #require(repositoryFile("systemd/jarvis-voice.toml.example"))
        let text = Self.uncommented(example)
        let table = try TOMLParser.parse(text)
        var problems: [ConfigProblem] = []
        var readKeys: Set<String> = []
        let config = JarvisVoiceConfig(toml: table, problems: &problems, readKeys: &readKeys)
        #expect(problems == [])
        var expected = Self.respeaker
        expected.jarvis.url = "http://192.168.1.20:8081/ui"
        #expect(config == expected)

        var exampleKeys: Set<String> = []
        for entry in table.entries {
            guard case .table(let section) = entry.value else { continue }
            for key in section.keys { exampleKeys.insert("\(entry.key).\(key)") }
        }
        // Keys without a default (unset = feature off) appear only as "e.g." text.
        let optionalKeys: Set<String> = ["led.line"]
        #expect(readKeys.subtracting(exampleKeys) == optionalKeys)
        for key in optionalKeys {
            let name = key.split(separator: ".")[1]
            #expect(example.contains("e.g. \(name) = "), "example should show \(key) as e.g.")
        }
        #expect(readKeys.count == 72)
    }

    /// As shipped it needs the URL and nothing else; `check-config` points at the `[jarvis]` header.
    @Test func asShippedItNeedsOnlyTheJarvisURL() throws {
        let example = try #require(repositoryFile("systemd/jarvis-voice.toml.example"))
        let (config, problems) = ConfigLoader.decode(example)
        let header = example.split(separator: "\n", omittingEmptySubsequences: false).firstIndex(of: "[jarvis]").map { $0 + 1 }
        #expect(problems.map(\.line) == [header] && problems.first?.message.hasPrefix("[jarvis] url is required") == true, "\(problems)")
        #expect(config == Self.respeaker)
    }
}
