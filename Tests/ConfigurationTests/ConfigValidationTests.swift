import Testing

@testable import Configuration

@Suite struct ConfigValidationTests {
    /// `[jarvis] url` has no default (the owner's words go only where the owner wrote); the offline audio
    /// commands do not need it.
    @Test func anEmptyFileNeedsOnlyTheJarvisURL() {
        let (_, problems) = ConfigLoader.decode("")
        #expect(
            problems.map { $0.formatted(path: "config.toml") } == [
                "config.toml: [jarvis] url is required: the address of your Jarvis (term-llm serve), e.g. url = \"http://192.168.1.20:8081/ui\""
            ])
        let (_, underHeader) = ConfigLoader.decode("[audio]\n\n[jarvis]\ntoken_file = \"/etc/jarvis-voice/jarvis.token\"\n")
        #expect(underHeader.map(\.line) == [3], "points at the [jarvis] header")
        let (config, audioOnly) = ConfigLoader.decode("", for: .audioOnly)
        #expect(audioOnly.isEmpty)
        #expect(config == JarvisVoiceConfig())
    }

    @Test func aJarvisURLWithTheEndpointNamesTheBase() {
        let (_, problems) = ConfigLoader.decode("[jarvis]\nurl = \"http://jarvis.lan:8081/ui/v1/chat/completions\"\n")
        #expect(
            problems == [
                ConfigProblem(
                    line: 2,
                    message: "[jarvis] url is the base address, without /v1/chat/completions "
                        + "(the service adds it): url = \"http://jarvis.lan:8081/ui\"")
            ])
    }

    @Test func contractKeysAreRead() {
        let (config, problems) = ConfigLoader.decode(
            """
            [audio]
            capture_device = "plughw:CARD=ArrayUAC10,DEV=0"
            playback_device = "test_out"
            capture_channels = 6
            reference_channel = 5

            [realtime]
            url = "ws://127.0.0.1:4010/v1/realtime"
            model = "gpt-realtime-mini"
            api_key_file = "/run/test/key"

            [jarvis]
            url = "http://localhost:8081/ui"
            token_file = ""

            [button]
            enabled = false

            [control]
            socket = "/tmp/jv/control.sock"

            [media]
            volume = 1

            [log]
            level = "debug"
            """)
        #expect(problems == [])
        #expect(config.audio.captureDevice == "plughw:CARD=ArrayUAC10,DEV=0")
        #expect(config.audio.playbackDevice == "test_out")
        #expect(config.audio.captureChannels == 6)
        #expect(config.audio.referenceChannel == 5)
        #expect(config.realtime.url == "ws://127.0.0.1:4010/v1/realtime")
        #expect(config.realtime.model == "gpt-realtime-mini")
        #expect(config.realtime.apiKeyFile == "/run/test/key")
        #expect(config.jarvis.url == "http://localhost:8081/ui")
        #expect(config.jarvis.tokenFile == "")
        #expect(config.button.enabled == false)
        #expect(config.control.socket == "/tmp/jv/control.sock")
        #expect(config.media.volume == 1.0)
        #expect(config.log.level == .debug)
    }

    @Test(arguments: [
        "ws://localhost:9000/v1/realtime", "ws://127.0.0.1/x", "ws://[::1]:8080/", "ws://127.1.2.3:1/",
        "wss://api.openai.com/v1/realtime", "wss://example.com:8443/realtime", "ws://[::1]/v1/realtime",
        "wss://[2001:db8::1]:8443/v1/realtime"
    ])
    func acceptedRealtimeURLs(url: String) {
        #expect(RealtimeConfig.urlProblem(url) == nil)
    }

    @Test(arguments: [
        "ws://example.com/v1/realtime", "ws://10.0.0.5/", "ws://127.0.0.1.evil.com/", "http://127.0.0.1/",
        "https://api.openai.com/v1/realtime", "api.openai.com", "wss://", "ws://localhost:99999/",
        "wss://user:pw@api.openai.com/v1/realtime", "ws://[::1/", "wss://[1::2::3]/"
    ])
    func rejectedRealtimeURLs(url: String) {
        #expect(RealtimeConfig.urlProblem(url) != nil)
    }

    @Test func jarvisURLsFollowTheClientsRules() {
        #expect(JarvisConfig.urlProblem("http://10.0.0.52:8081/ui") == nil)
        #expect(JarvisConfig.urlProblem("https://[fd00::52]:8081/ui") == nil)
        #expect(JarvisConfig.urlProblem("http://10.0.0.52:8081") == nil)
        let credentials = JarvisConfig.urlProblem("http://sam:hunter2@10.0.0.52:8081/ui")
        #expect(credentials?.contains("token_file") == true && credentials?.contains("hunter2") == false)
        #expect(JarvisConfig.urlProblem("ws://10.0.0.52/ui") == "must be an http:// or https:// URL, got \"ws://10.0.0.52/ui\"")
        #expect(JarvisConfig.urlProblem("http://10.0.0.52:0/ui") != nil)
    }

    /// Every problem is collected, each on the line of its key, in line order.
    @Test func collectsAllProblemsWithLines() {
        let (_, problems) = ConfigLoader.decode(
            """
            stray = 1
            [audio]
            capture_channels = "two"
            period_ms = 0
            mic_channel = 3
            realtime_priority = 99
            foo = true

            [dsp]
            echo_tail_ms = 8
            agc = "yes"

            [realtime]
            url = "ws://example.com/v1/realtime"
            vad = "auto"
            idle_timeout_s = 0.5
            api_key_file = "openai.key"

            [jarvis]
            url = "10.0.0.52:8081"
            total_timeout_s = 10

            [weather]
            city = "Berlin"

            [button]
            hold_ms = 3500

            [led]
            enabled = true

            [media]
            volume = 1.5
            duck_db = 6

            [control]
            socket = "/run/jarvis-voice/a-very-long-directory-name-that-goes-on-and-on-and-on/and-on-and-on-and-on-and-on/control.sock"

            [log]
            level = "verbose"
            """)
        #expect(
            problems.map { "\($0.line ?? 0): \($0.message)" } == [
                "1: unknown key \"stray\" outside any [section]",
                "3: [audio] capture_channels must be an integer, got a string",
                "4: [audio] period_ms must be between 1 and 100, got 0",
                "5: [audio] mic_channel must be below capture_channels (1), got 3",
                "7: unknown key \"foo\" in [audio]",
                "10: [dsp] echo_tail_ms must be between 16 and 1000, got 8",
                "11: [dsp] agc must be true or false, got a string",
                "14: [realtime] url may use ws:// only for loopback hosts (use wss://), got \"ws://example.com/v1/realtime\"",
                "15: [realtime] vad must be one of \"semantic\", \"server\", got \"auto\"",
                "16: [realtime] idle_timeout_s must be between 1 and 3600, got 0.5",
                "17: [realtime] api_key_file must be an absolute path, got \"openai.key\"",
                "20: [jarvis] url must be an http:// or https:// URL, got \"10.0.0.52:8081\"",
                "21: [jarvis] total_timeout_s must be at least inactivity_timeout_s (30), got 10",
                "23: unknown section [weather]",
                "27: [button] hold_ms must be below long_hold_ms (3000), got 3500",
                "30: [led] enabled needs a line = N when enabled = true",
                "33: [media] volume must be between 0 and 1, got 1.5",
                "34: [media] duck_db must be between -96 and 0, got 6",
                "37: [control] socket is 112 bytes long; a Unix socket path may have at most 107",
                "40: [log] level must be one of \"trace\", \"debug\", \"info\", \"notice\", \"warning\", \"error\", \"critical\", got \"verbose\""
            ])
    }

    /// `[media] loudness_target`: a loudness from -36 to -10 LUFS, or 0 for leveling off.
    @Test func loudnessTargetRules() {
        let (config, problems) = ConfigLoader.decode("[media]\nloudness_target = -5\n", for: .audioOnly)
        #expect(
            problems == [
                ConfigProblem(
                    line: 2, message: "[media] loudness_target must be between -36 and -10 (LUFS), or 0 to turn loudness leveling off, got -5")
            ])
        #expect(config.media.leveling == -18, "the default stands")
        let (text, textProblems) = ConfigLoader.decode("[media]\nloudness_target = \"loud\"\n", for: .audioOnly)
        #expect(textProblems == [ConfigProblem(line: 2, message: "[media] loudness_target must be a number, got a string")])
        #expect(text.media.loudnessTarget == -18)
        #expect(ConfigLoader.decode("[media]\nloudness_target = 0\n", for: .audioOnly).config.media.leveling == nil)
        let (quiet, none) = ConfigLoader.decode("[media]\nloudness_target = -23.5\n", for: .audioOnly)
        #expect(none.isEmpty && quiet.media.leveling == -23.5)
    }

    @Test func syntaxErrorIsReportedAloneWithItsLine() {
        let (config, problems) = ConfigLoader.decode("[audio]\nperiod_ms = 0\ncapture_device = default\n")
        #expect(problems == [ConfigProblem(line: 3, message: "syntax error: invalid value default (strings need quotes: \"default\")")])
        #expect(config == JarvisVoiceConfig())
    }

    @Test func sectionThatIsNotATable() {
        let (_, problems) = ConfigLoader.decode("audio = 1\n", for: .audioOnly)
        #expect(problems == [ConfigProblem(line: 1, message: "unknown key \"audio\" outside any [section]")])
    }

    @Test func nestedTableInSectionIsUnknownKey() {
        let (_, problems) = ConfigLoader.decode("[audio]\n[audio.extra]\nx = 1\n", for: .audioOnly)
        #expect(problems == [ConfigProblem(line: 2, message: "unknown key \"extra\" in [audio]")])
    }

    @Test func referenceChannelRules() {
        let (_, sameAsMic) = ConfigLoader.decode("[audio]\ncapture_channels = 6\nreference_channel = 0\n", for: .audioOnly)
        #expect(sameAsMic == [ConfigProblem(line: 3, message: "[audio] reference_channel must differ from mic_channel (0)")])
        let (_, tooHigh) = ConfigLoader.decode("[audio]\ncapture_channels = 2\nreference_channel = 5\n", for: .audioOnly)
        #expect(tooHigh == [ConfigProblem(line: 3, message: "[audio] reference_channel must be below capture_channels (2), got 5")])
    }

    @Test func dottedKeysAtTopLevelWork() {
        let (config, problems) = ConfigLoader.decode("audio.period_ms = 20\nbutton = { enabled = false }\n", for: .audioOnly)
        #expect(problems.isEmpty)
        #expect(config.audio.periodMs == 20)
        #expect(config.button.enabled == false)
    }

    @Test func durationsFollowSeconds() {
        let (config, problems) = ConfigLoader.decode(
            "[realtime]\nidle_timeout_s = 2.5\n[jarvis]\nurl = \"http://jarvis.lan/ui\"\nsession_idle_reset_min = 2\n")
        #expect(problems.isEmpty)
        #expect(config.realtime.idleTimeout == .milliseconds(2500))
        #expect(config.jarvis.sessionIdleReset == .seconds(120))
    }

    /// What an owner editing over SSH gets wrong: quotes a word processor curled, a key one letter off,
    /// a section name misspelt.
    @Test func theOwnersSlipsGetAHint() {
        let (_, curled) = ConfigLoader.decode("[realtime]\nvoice = \u{201C}marin\u{201D}\n", for: .audioOnly)
        #expect(
            curled == [
                ConfigProblem(
                    line: 2,
                    message:
                        "syntax error: typographic quotes are not TOML quotes: type the value between straight quotes (\"...\")")
            ])
        let (_, typo) = ConfigLoader.decode("[audio]\ncapture_chanels = 6\nbufer_periods = 4\nxyz = 1\n", for: .audioOnly)
        #expect(
            typo.map(\.message) == [
                "unknown key \"capture_chanels\" in [audio]; did you mean \"capture_channels\"?",
                "unknown key \"bufer_periods\" in [audio]; did you mean \"buffer_periods\"?",
                "unknown key \"xyz\" in [audio]"
            ])
        let (_, section) = ConfigLoader.decode("[jarvs]\nurl = \"http://jarvis.lan/ui\"\n", for: .audioOnly)
        #expect(section.map(\.message) == ["unknown section [jarvs]; did you mean [jarvis]?"])
        #expect(NearMiss.editDistance(Array("mic_chanel".utf8), Array("mic_channel".utf8)) == 1)
        #expect(NearMiss.editDistance(Array("vioce".utf8), Array("voice".utf8)) == 1, "a swap is one edit")
        #expect(NearMiss.closest(to: String(repeating: "a", count: 100_000), among: ["audio"]) == nil, "a hostile key is not compared")
    }

    /// The shipped file keeps most headers commented out: a key uncommented without its header lands in
    /// the section above, and the hint says which header to uncomment.
    @Test func aKeyUncommentedWithoutItsHeaderIsPointedAtIt() {
        let (_, problems) = ConfigLoader.decode("[jarvis]\nurl = \"http://jarvis.lan/ui\"\n\n# [led]\n# Wired an LED?\nenabled = true\n")
        #expect(
            problems.map(\.description) == [
                "line 6: unknown key \"enabled\" in [jarvis]; it is under \"# [led]\" (line 4), which is commented out: uncomment that header too"
            ])
        #expect(
            CommentedHeader.find(in: Array("  #  [media] \r\n# [Audio]\n#[dsp]\n# [a b]\n".utf8))
                == [CommentedHeader(line: 1, name: "media"), CommentedHeader(line: 3, name: "dsp")])
    }
}
