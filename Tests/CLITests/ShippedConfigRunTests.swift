import ALSATestbed
import Glibc
import TestProcess
import TestSupport
import Testing

extension ServicesOneAtATime {
    /// The shipped configuration on a mic array laid out as the ReSpeaker is (6 channels: the processed
    /// beam on 0, the hardware loopback of what it plays on 5, about 20 dB below the mics' echo): with only
    /// the owner's edit (the Jarvis URL; the key comes from the environment), the service starts, opens
    /// the array as shipped and cancels the speaker's echo with that loopback as its reference. The test
    /// only renames the two devices to its paced stand-ins for the card and points the Realtime URL, the
    /// control socket and the state directory at its own.
    @Suite(.timeLimit(.minutes(3))) struct ShippedConfigRunTests {
        let dir = TemporaryDirectory()

        @Test func theShippedConfigWorksOnTheReSpeakerAsIs() async throws {
            let binary = try #require(ChildProcess.builtExecutable(), "jarvis-voice is not built next to the tests")
            let example = try #require(repositoryFile("systemd/jarvis-voice.toml.example"))
            var script = RealtimeStandInScript()
            script.answerAudio = (0..<(24 * 3_000)).map { Int16(6_000 * sin(Double($0) * 2 * .pi * 440 / 24_000)) }
            let realtime = try await RealtimeStandIn.start(script: script)
            let jarvis = try await TermLLMStandIn.start()

            let owners = example.replacingFirst(#"# url = "http://192.168.1.20:8081/ui""#, with: "url = \"\(jarvis.baseURL)\"")
                .replacingFirst(#""hw:respeaker""#, with: #""respeaker_mic""#)
                .replacingFirst(#""plughw:respeaker""#, with: #""respeaker_speaker""#)
            try #require(owners.contains("capture_channels = 6") && owners.contains("reference_channel = 5"))
            let config = dir.write(
                "config.toml",
                owners + """

                    [realtime]
                    url = "\(realtime.url)"
                    [control]
                    socket = "\(dir.file("control.sock"))"
                    [media]
                    state_dir = "\(dir.file("state"))"

                    """)
            let played = dir.file("played.raw")
            let alsa = dir.file("asound.conf")
            try TestFiles.write([], to: dir.file("mic.raw"))
            try TestPCMConfig.write(
                [
                    .paced(
                        name: "respeaker_mic",
                        PacedPCMOptions(
                            infile: dir.file("mic.raw"), link: "kitchen", echoGain: 0.3,
                            echoDelayMilliseconds: 15, followInfile: true,
                            loopbackChannel: 5, loopbackGain: 0.03)),
                    .paced(name: "respeaker_speaker", PacedPCMOptions(outfile: played, link: "kitchen"))
                ], to: alsa)
            let check = try await ChildProcess.run([binary, "check-config", "-c", config])
            #expect(check.status == 0, "\(check.stdout)")

            let log = dir.file("service.log")
            let process = try BackgroundProcess(
                [binary, "run", "--config", config],
                environment: [
                    "ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:\(alsa)", "OPENAI_API_KEY": realtime.script.apiKey,
                    "CREDENTIALS_DIRECTORY": "", "NOTIFY_SOCKET": "", "WATCHDOG_USEC": ""
                ],
                stderr: .file(log))
            let service = ServiceUnderTest(process: process, binary: binary, config: config, log: log, mic: dir.file("mic.raw"), played: played)
            defer { _ = process.signal(SIGKILL) }
            try #require(try await service.ctlWhenReady("status"), "log:\n\(service.logText)")

            #expect(try await service.ctl("say", "The oven is hot.").status == 0, "log:\n\(service.logText)")
            let status = try await service.status()
            let reduction = status?["audio"]?["echo_reduction_db"]?.numberValue ?? 0
            print("shipped config on the ReSpeaker layout: echo reduction \(reduction) dB")
            #expect(reduction >= 10, "the loopback channel is the canceller's reference: \(String(describing: status))")
            let text = service.logText
            #expect(text.contains("capture device respeaker_mic opened: 16000 Hz, 6 ch"), "log:\n\(text)")
            #expect(text.contains("the reference is raised"), "the loopback is quieter than its echo, as on the array: log:\n\(text)")
            #expect(text.contains("button unavailable, continuing with the control socket only"), "no GPIO here: log:\n\(text)")
            await service.stop()
            await realtime.shutdown()
            await jarvis.stop()
        }
    }
}

extension String {
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = firstRange(of: target) else { return self }
        var copy = self
        copy.replaceSubrange(range, with: replacement)
        return copy
    }
}
