import Testing

@testable import Configuration

/// A key a release renames or drops keeps working for one release, with a warning naming what to write
/// instead, so an upgrade never stops the service at boot.
@Suite struct RenamedKeyTests {
    static let renames = [
        RenamedKey(old: .init("media", "dj_loop"), new: .init("media", "dj"), acceptedUntil: "0.3"),
        RenamedKey(old: .init("audio", "latency_ms"), new: .init("dsp", "max_reference_lag_ms"), acceptedUntil: "0.3"),
        RenamedKey(old: .init("realtime", "temperature"), new: nil, acceptedUntil: "0.3")
    ]

    static func decode(_ text: String) -> (config: JarvisVoiceConfig, problems: [ConfigProblem], warnings: [ConfigProblem]) {
        ConfigLoader.decodeReportingRenames(bytes: Array(text.utf8), for: .audioOnly, renames: renames)
    }

    @Test func anOldNameIsAcceptedWithAWarningNamingTheNewOne() {
        let (config, problems, warnings) = Self.decode(
            """
            [audio]
            latency_ms = 300
            [realtime]
            temperature = 0.8
            [media]
            dj_loop = false
            """)
        #expect(problems.isEmpty, "\(problems)")
        #expect(config.media.dj == false && config.dsp.maxReferenceLagMs == 300)
        #expect(
            warnings.map { $0.formatted(path: "config.toml", label: "warning") } == [
                "config.toml:2: warning: [audio] latency_ms is now [dsp] max_reference_lag_ms: rename it (the old name is accepted until release 0.3)",
                "config.toml:4: warning: [realtime] temperature is no longer used: delete it (the old name is accepted until release 0.3)",
                "config.toml:6: warning: [media] dj_loop is now [media] dj: rename it (the old name is accepted until release 0.3)"
            ])
    }

    @Test func theNewNameWinsWhenBothAreSet() {
        let (config, problems, warnings) = Self.decode("[media]\ndj = true\ndj_loop = false\n")
        #expect(problems.isEmpty && config.media.dj == true && warnings.count == 1)
    }

    @Test func withoutARenameAnOldNameIsAnUnknownKey() {
        let (_, problems, warnings) = ConfigLoader.decodeReportingRenames(
            bytes: Array("[media]\ndj_loop = false\n".utf8), for: .audioOnly, renames: [])
        #expect(warnings.isEmpty)
        #expect(problems.map(\.message) == ["unknown key \"dj_loop\" in [media]"])
    }

    /// A rename names keys this release reads: a new name that is itself unknown would fail every start.
    @Test func theShippedTableNamesKeysThatExist() {
        var problems: [ConfigProblem] = []
        var read: Set<String> = []
        _ = JarvisVoiceConfig(toml: TOMLTable(), problems: &problems, readKeys: &read)
        for rename in RenamedKey.table {
            if let new = rename.new { #expect(read.contains("\(new.section).\(new.key)"), "\(rename)") }
            #expect(!read.contains("\(rename.old.section).\(rename.old.key)"), "\(rename.old) is still read")
        }
    }
}
