import ALSATestbed
import Testing

@Suite struct DevicesCommandTests {
    let dir = TemporaryDirectory()

    @Test func listsPCMsFromTheALSAConfiguration() throws {
        let binary = try #require(TestProcess.buildDirectory) + "/jarvis-voice"
        let config = dir.file("extra.conf")
        try TestFiles.write(Array("""
            pcm.kitchen_mic { type null hint { show on description "Kitchen mic array" } }

            """.utf8), to: config)
        let out = dir.file("out.txt")
        let status = TestProcess.run(
            binary, ["devices"], environment: ["ALSA_CONFIG_PATH=/usr/share/alsa/alsa.conf:\(config)"], outputPath: out)
        let text = String(decoding: try TestFiles.read(out), as: UTF8.self)
        #expect(status == 0, "\(text)")
        #expect(text.hasPrefix("ALSA PCMs"))
        #expect(text.split(separator: "\n").contains { $0.contains("kitchen_mic") && $0.contains("in/out") && $0.contains("Kitchen mic array") })
    }
}
