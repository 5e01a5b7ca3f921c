import TestProcess
import Testing

@testable import Configuration

/// `changedKeys(to:)`: what a reload names, spelled as in the file.
@Suite struct ConfigChangesTests {
    @Test func namesChangedKeysAsInTheFile() {
        let running = JarvisVoiceConfig()
        var new = running
        new.realtime.voice = "cedar"
        new.realtime.idleTimeoutSeconds = 20
        new.media.duckDB = -12
        new.log.level = .debug
        new.jarvis.sessionIdleResetMinutes = 5
        let changed = running.changedKeys(to: new)
        #expect(
            changed.map(\.key) == [
                "[realtime] voice", "[realtime] idle_timeout_s", "[jarvis] session_idle_reset_min",
                "[media] duck_db", "[log] level"
            ])
        #expect(changed.map(\.value) == ["cedar", "20.0", "5", "-12.0", "debug"])
        #expect(running.changedKeys(to: running).isEmpty)
    }

    /// Every field of every section maps onto a key the loader reads, so a reload never names a
    /// key the owner cannot find in the file.
    @Test func everyFieldNameIsAFileKey() throws {
        var problems: [ConfigProblem] = []
        var readKeys: Set<String> = []
        let example = try #require(repositoryFile("systemd/jarvis-voice.toml.example"))
        _ = JarvisVoiceConfig(toml: try TOMLParser.parse(ExampleConfigTests.uncommented(example)), problems: &problems, readKeys: &readKeys)
        #expect(problems.isEmpty)
        var fieldKeys: Set<String> = []
        for section in Mirror(reflecting: JarvisVoiceConfig()).children {
            let name = try #require(section.label)
            for field in Mirror(reflecting: section.value).children {
                fieldKeys.insert("\(name).\(JarvisVoiceConfig.fileKey(try #require(field.label)))")
            }
        }
        #expect(fieldKeys == readKeys)
    }
}
