import ALSATestbed
import TestProcess
import Testing

@Suite struct DevicesCommandTests {
    let dir = TemporaryDirectory()

    @Test func listsPCMsFromTheALSAConfiguration() async throws {
        let binary = try #require(ChildProcess.builtExecutable("jarvis-voice"))
        let config = dir.file("extra.conf")
        try TestFiles.write(
            Array(
                """
                pcm.kitchen_mic { type null hint { show on description "Kitchen mic array" } }

                """.utf8), to: config)
        let result = try await ChildProcess.run(
            [binary, "devices"], environment: ["ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:\(config)"])
        let status = result.status
        let text = result.stdout + result.stderr
        #expect(status == 0, "\(text)")
        #expect(text.hasPrefix("ALSA PCMs"))
        #expect(text.split(separator: "\n").contains { $0.contains("kitchen_mic") && $0.contains("in/out") && $0.contains("Kitchen mic array") })
    }
}
