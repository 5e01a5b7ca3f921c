import AudioCore
import Basics
import EchoControl
import Realtime

extension JarvisVoiceConfig {
    /// The one place the file's keys are read. Every key, its type and default:
    ///
    /// ```
    /// [audio]    capture_device = "default", playback_device = "default", capture_rate = 16000,
    ///            capture_channels = 1, mic_channel = 0, reference_channel = (unset; e.g. 5),
    ///            playback_rate = 48000, playback_channels = 2, period_ms = 10, buffer_periods = 4,
    ///            realtime_priority = 70
    /// [dsp]      frame_ms = 16, echo_tail_ms = 192, max_reference_lag_ms = 500,
    ///            drift_compensation = true, noise_suppress_db = -15, echo_suppress_db = -70,
    ///            echo_suppress_active_db = -15, residual_echo_suppressor = true,
    ///            match_reference_level = true, agc = false, agc_level = 8000
    /// [realtime] url = "wss://api.openai.com/v1/realtime", model = "gpt-realtime-2.1-mini",
    ///            reasoning_effort = "low", api_key_file = "", voice = "marin", vad = "semantic",
    ///            vad_eagerness = "auto", log_transcripts = false, idle_timeout_s = 10,
    ///            connect_timeout_s = 10
    /// [jarvis]   url (required, no default), token_file = "",
    ///            api = "chat_completions", inactivity_timeout_s = 30, total_timeout_s = 120,
    ///            session_idle_reset_min = 30, max_answer_words = 150
    /// [button]   enabled = true, chip = "/dev/gpiochip0", line = 17, active_low = true,
    ///            bias = "pull-up", debounce_ms = 20, hold_ms = 400, long_hold_ms = 3000,
    ///            double_tap_ms = 400
    /// [led]      enabled = false, chip = "/dev/gpiochip0", line = (unset; required if enabled),
    ///            active_low = false
    /// [media]    volume = 0.5, duck_db = -20, duck_ramp_ms = 100, restore_ramp_ms = 300,
    ///            state_dir = "/var/lib/jarvis-voice", dj = true, radio_mode = false,
    ///            station_catalog_url = "https://api.somafm.com/channels.json", reconnect_attempts = 8,
    ///            loudness_target = -18
    /// [snapcast] enabled = false, server = "" (host:port; required if enabled), name = "" (the host
    ///            name), id = "" (the name), control_port = 1705, announce_stream = "announce",
    ///            announce_port = 4953
    /// [control]  socket = "/run/jarvis-voice/control.sock"
    /// [timers]   ring_cap_s = 900
    /// [log]      level = "info"
    /// ```
    ///
    /// Every problem is appended to `problems` (wrong types, ranges, cross-key rules, unknown
    /// sections and keys); a value with a problem falls back to its default so reading continues.
    public init(toml: TOMLTable, problems: inout [ConfigProblem]) {
        var keys: Set<String> = []
        self.init(toml: toml, problems: &problems, readKeys: &keys)
    }

    /// `readKeys` receives every `section.key` read, so tests can check the example file lists them all.
    init(toml: TOMLTable, problems: inout [ConfigProblem], readKeys: inout Set<String>, commentedHeaders: [CommentedHeader] = []) {
        var sections: [String: TOMLTable] = [:]
        for entry in toml.entries {
            guard case .table(let table) = entry.value else {
                problems.append(ConfigProblem(line: entry.line, message: "unknown key \"\(entry.key)\" outside any [section]"))
                continue
            }
            guard Self.sectionNames.contains(entry.key) else {
                let hint = NearMiss.closest(to: entry.key, among: Self.sectionNames).map { "; did you mean [\($0)]?" } ?? ""
                problems.append(ConfigProblem(line: table.line, message: "unknown section [\(entry.key)]\(hint)"))
                continue
            }
            sections[entry.key] = table
        }
        func reader(_ name: String) -> ConfigSectionReader {
            ConfigSectionReader(name: name, table: sections[name] ?? TOMLTable(line: 0), commentedHeaders: commentedHeaders)
        }
        var readers: [ConfigSectionReader] = []
        func finish(_ reader: inout ConfigSectionReader) {
            reader.reportUnknownKeys()
            readers.append(reader)
        }

        var audio = reader("audio")
        self.audio = AudioConfig(reader: &audio)
        finish(&audio)
        var dsp = reader("dsp")
        self.dsp = CaptureChainConfiguration(reader: &dsp)
        finish(&dsp)
        var realtime = reader("realtime")
        self.realtime = RealtimeConfig(reader: &realtime)
        finish(&realtime)
        var jarvis = reader("jarvis")
        self.jarvis = JarvisConfig(reader: &jarvis)
        finish(&jarvis)
        var button = reader("button")
        self.button = ButtonConfig(reader: &button)
        finish(&button)
        var led = reader("led")
        self.led = LEDConfig(reader: &led)
        finish(&led)
        var media = reader("media")
        self.media = MediaConfig(reader: &media)
        finish(&media)
        var snapcast = reader("snapcast")
        self.snapcast = SnapcastConfig(reader: &snapcast)
        finish(&snapcast)
        var control = reader("control")
        self.control = ControlConfig(reader: &control)
        finish(&control)
        var timers = reader("timers")
        self.timers = TimersConfig(reader: &timers)
        finish(&timers)
        var log = reader("log")
        self.log = LogConfig(reader: &log)
        finish(&log)

        problems += readers.flatMap(\.problems)
        readKeys = Set(readers.flatMap { reader in reader.known.map { "\(reader.name).\($0)" } })
        problems.sort { ($0.line ?? 0) < ($1.line ?? 0) }  // stable: same-line problems keep reading order; lineless first
    }

    static let sectionNames: Set<String> = [
        "audio", "dsp", "realtime", "jarvis", "button", "led", "media", "snapcast", "control", "timers", "log"
    ]
}

extension AudioConfig {
    init(reader r: inout ConfigSectionReader) {
        let d = AudioConfig()
        self.init()
        captureDevice = r.string("capture_device", default: d.captureDevice)
        playbackDevice = r.string("playback_device", default: d.playbackDevice)
        captureRate = r.integer("capture_rate", default: d.captureRate, in: 8000...192_000)
        captureChannels = r.integer("capture_channels", default: d.captureChannels, in: 1...32)
        micChannel = r.integer("mic_channel", default: d.micChannel, in: 0...31)
        referenceChannel = r.optionalInteger("reference_channel", in: 0...31)
        playbackRate = r.integer("playback_rate", default: d.playbackRate, in: 8000...192_000)
        playbackChannels = r.integer("playback_channels", default: d.playbackChannels, in: 1...8)
        periodMs = r.integer("period_ms", default: d.periodMs, in: 1...100)
        bufferPeriods = r.integer("buffer_periods", default: d.bufferPeriods, in: 2...64)
        realtimePriority = r.integer("realtime_priority", default: d.realtimePriority, in: 0...99)
        if micChannel >= captureChannels {
            r.problem("mic_channel", "must be below capture_channels (\(captureChannels)), got \(micChannel)")
        }
        if let referenceChannel {
            if referenceChannel >= captureChannels {
                r.problem("reference_channel", "must be below capture_channels (\(captureChannels)), got \(referenceChannel)")
            } else if referenceChannel == micChannel {
                r.problem("reference_channel", "must differ from mic_channel (\(micChannel))")
            }
        }
    }
}

extension CaptureChainConfiguration {
    init(reader r: inout ConfigSectionReader) {
        let d = CaptureChainConfiguration()
        self.init()
        typealias Limits = CaptureChainLimits
        frameMs = r.integer("frame_ms", default: d.frameMs, in: Limits.frameMilliseconds)
        if !Limits.isValidFrame(milliseconds: frameMs) {
            r.problem("frame_ms", "must be an even number of milliseconds, got \(frameMs)")
        }
        echoTailMs = r.integer("echo_tail_ms", default: d.echoTailMs, in: Limits.echoTailMilliseconds)
        maxReferenceLagMs = r.integer("max_reference_lag_ms", default: d.maxReferenceLagMs, in: Limits.maxReferenceLagMilliseconds)
        driftCompensation = r.boolean("drift_compensation", default: d.driftCompensation)
        noiseSuppressDB = r.integer("noise_suppress_db", default: d.noiseSuppressDB, in: Limits.noiseSuppressDB)
        echoSuppressDB = r.integer("echo_suppress_db", default: d.echoSuppressDB, in: Limits.echoSuppressDB)
        echoSuppressActiveDB = r.integer("echo_suppress_active_db", default: d.echoSuppressActiveDB, in: Limits.echoSuppressDB)
        residualEchoSuppressor = r.boolean("residual_echo_suppressor", default: d.residualEchoSuppressor)
        matchReferenceLevel = r.boolean("match_reference_level", default: d.matchReferenceLevel)
        agc = r.boolean("agc", default: d.agc)
        agcLevel = r.integer("agc_level", default: d.agcLevel, in: Limits.agcLevel)
        if !Limits.isValidEchoTail(milliseconds: echoTailMs, frameMilliseconds: frameMs) {
            r.problem("echo_tail_ms", "must be at least frame_ms (\(frameMs)), got \(echoTailMs)")
        }
    }
}

extension RealtimeConfig {
    init(reader r: inout ConfigSectionReader) {
        let d = RealtimeConfig()
        self.init()
        url = r.string("url", default: d.url)
        model = r.string("model", default: d.model)
        reasoningEffort = r.choice("reasoning_effort", default: d.reasoningEffort)
        apiKeyFile = r.path("api_key_file", default: d.apiKeyFile, allowEmpty: true)
        voice = r.string("voice", default: d.voice)
        if !RealtimeModels.voices.contains(voice) {
            r.problem("voice", "must be one of \(RealtimeModels.voices.map { "\"\($0)\"" }.joined(separator: ", ")), got \"\(voice)\"")
            voice = d.voice
        }
        vad = r.choice("vad", default: d.vad)
        vadEagerness = r.choice("vad_eagerness", default: d.vadEagerness)
        logTranscripts = r.boolean("log_transcripts", default: d.logTranscripts)
        idleTimeoutSeconds = r.number("idle_timeout_s", default: d.idleTimeoutSeconds, in: 1...3600)
        connectTimeoutSeconds = r.number("connect_timeout_s", default: d.connectTimeoutSeconds, in: 1...300)
        if let problem = Self.urlProblem(url) {
            r.problem("url", problem)
            url = d.url
        }
    }

    /// wss:// anywhere; ws:// only to a loopback host (test stand-ins), never over the network: the rules
    /// the Realtime client connects with (`WebURL.Rules.realtime`).
    static func urlProblem(_ url: String) -> String? {
        URLProblem.describe(url, rules: .realtime, expected: "a ws:// or wss:// URL", credentialsLiveIn: "api_key_file")
    }
}

extension JarvisConfig {
    init(reader r: inout ConfigSectionReader) {
        let d = JarvisConfig()
        self.init()
        url = r.string("url", default: d.url)  // required by the service: ConfigLoader.requiredProblems
        tokenFile = r.path("token_file", default: d.tokenFile, allowEmpty: true)
        api = r.choice("api", default: d.api)
        inactivityTimeoutSeconds = r.number("inactivity_timeout_s", default: d.inactivityTimeoutSeconds, in: 1...3600)
        totalTimeoutSeconds = r.number("total_timeout_s", default: d.totalTimeoutSeconds, in: 1...3600)
        sessionIdleResetMinutes = r.integer("session_idle_reset_min", default: d.sessionIdleResetMinutes, in: 1...10_080)
        maxAnswerWords = r.integer("max_answer_words", default: d.maxAnswerWords, in: 10...2000)
        if !url.isEmpty, let problem = Self.urlProblem(url) {
            r.problem("url", problem)
            url = d.url
        }
        if totalTimeoutSeconds < inactivityTimeoutSeconds {
            let total = ConfigSectionReader.format(totalTimeoutSeconds)
            let inactivity = ConfigSectionReader.format(inactivityTimeoutSeconds)
            if r.isSet("total_timeout_s") {
                r.problem("total_timeout_s", "must be at least inactivity_timeout_s (\(inactivity)), got \(total)")
            } else {
                r.problem("inactivity_timeout_s", "must be at most total_timeout_s (\(total)), got \(inactivity)")
            }
        }
    }
}

extension JarvisConfig {
    /// http:// or https://, no credentials (the token comes from `token_file`): the rules the Jarvis
    /// client sends with (`WebURL.Rules.jarvis`).
    static func urlProblem(_ url: String) -> String? {
        if let problem = URLProblem.describe(url, rules: .jarvis, expected: "an http:// or https:// URL", credentialsLiveIn: "token_file") {
            return problem
        }
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        for endpoint in API.allCases.map(\.path) where path.hasSuffix(endpoint) || path.hasSuffix(endpoint + "/") {
            return
                "is the base address, without \(endpoint) (the service adds it): url = \"\(path.dropLast(path.hasSuffix("/") ? endpoint.count + 1 : endpoint.count))\""
        }
        return nil
    }
}

extension ButtonConfig {
    init(reader r: inout ConfigSectionReader) {
        let d = ButtonConfig()
        self.init()
        enabled = r.boolean("enabled", default: d.enabled)
        chip = r.path("chip", default: d.chip)
        line = r.integer("line", default: d.line, in: 0...1023)
        activeLow = r.boolean("active_low", default: d.activeLow)
        bias = r.choice("bias", default: d.bias)
        debounceMs = r.integer("debounce_ms", default: d.debounceMs, in: 0...500)
        holdMs = r.integer("hold_ms", default: d.holdMs, in: 100...10_000)
        longHoldMs = r.integer("long_hold_ms", default: d.longHoldMs, in: 500...60_000)
        doubleTapMs = r.integer("double_tap_ms", default: d.doubleTapMs, in: 100...2_000)
        if longHoldMs <= holdMs {
            if r.isSet("long_hold_ms") {
                r.problem("long_hold_ms", "must be above hold_ms (\(holdMs)), got \(longHoldMs)")
            } else {
                r.problem("hold_ms", "must be below long_hold_ms (\(longHoldMs)), got \(holdMs)")
            }
        }
        if debounceMs >= holdMs {
            r.problem("debounce_ms", "must be below hold_ms (\(holdMs)), got \(debounceMs)")
        }
    }
}

extension LEDConfig {
    init(reader r: inout ConfigSectionReader) {
        let d = LEDConfig()
        self.init()
        enabled = r.boolean("enabled", default: d.enabled)
        chip = r.path("chip", default: d.chip)
        line = r.optionalInteger("line", in: 0...1023)
        activeLow = r.boolean("active_low", default: d.activeLow)
        if enabled && line == nil && !r.isSet("line") {
            r.problem("enabled", "needs a line = N when enabled = true")
        }
    }
}

extension MediaConfig {
    init(reader r: inout ConfigSectionReader) {
        let d = MediaConfig()
        self.init()
        volume = r.number("volume", default: d.volume, in: 0...1)
        duckDB = r.number("duck_db", default: d.duckDB, in: -96...0)
        duckRampMs = r.integer("duck_ramp_ms", default: d.duckRampMs, in: 0...10_000)
        restoreRampMs = r.integer("restore_ramp_ms", default: d.restoreRampMs, in: 0...10_000)
        stateDir = r.path("state_dir", default: d.stateDir)
        dj = r.boolean("dj", default: d.dj)
        radioMode = r.boolean("radio_mode", default: d.radioMode)
        stationCatalogURL = r.string("station_catalog_url", default: d.stationCatalogURL, allowEmpty: true)
        reconnectAttempts = r.integer("reconnect_attempts", default: d.reconnectAttempts, in: 1...100)
        loudnessTarget = r.number("loudness_target", default: d.loudnessTarget, in: -.greatestFiniteMagnitude...(.greatestFiniteMagnitude))
        if loudnessTarget != 0 && !Self.loudnessTargets.contains(loudnessTarget) {
            r.problem(
                "loudness_target",
                "must be between -36 and -10 (LUFS), or 0 to turn loudness leveling off, got \(ConfigSectionReader.format(loudnessTarget))")
            loudnessTarget = d.loudnessTarget
        }
        if !stationCatalogURL.isEmpty,
            let problem = URLProblem.describe(
                stationCatalogURL, rules: .media, expected: "an http:// or https:// URL or \"\"")
        {
            r.problem("station_catalog_url", problem)
            stationCatalogURL = d.stationCatalogURL
        }
    }
}

extension SnapcastConfig {
    init(reader r: inout ConfigSectionReader) {
        let d = SnapcastConfig()
        self.init()
        enabled = r.boolean("enabled", default: d.enabled)
        server = r.string("server", default: d.server, allowEmpty: true)
        name = r.string("name", default: d.name, allowEmpty: true)
        id = r.string("id", default: d.id, allowEmpty: true)
        announceStream = r.string("announce_stream", default: d.announceStream, allowEmpty: true)
        announcePort = r.integer("announce_port", default: d.announcePort, in: 1...65_535)
        controlPort = r.integer("control_port", default: d.controlPort, in: 1...65_535)
        if !server.isEmpty, address == nil {
            r.problem("server", "must be host:port of the snapserver's stream port (e.g. \"home.lan:1704\"), got \"\(server)\"")
            server = d.server
        } else if enabled, server.isEmpty {
            r.problem("server", "is required when [snapcast] is enabled: host:port of the snapserver (its stream port, 1704)")
        }
        let names = [("name", name), ("id", id), ("announce_stream", announceStream)]
        for (key, value) in names where value.utf8.count > 64 || value.contains(where: \.isNewline) {
            r.problem(key, "must be one line of at most 64 bytes")
        }
    }
}

extension TimersConfig {
    init(reader r: inout ConfigSectionReader) {
        let d = TimersConfig()
        self.init()
        ringCapSeconds = r.integer("ring_cap_s", default: d.ringCapSeconds, in: 5...7_200)
    }
}

extension ControlConfig {
    /// Longest path that fits `sockaddr_un.sun_path` with its terminating NUL.
    static let maxSocketPathBytes = 107

    init(reader r: inout ConfigSectionReader) {
        let d = ControlConfig()
        self.init()
        socket = r.path("socket", default: d.socket)
        if socket.utf8.count > Self.maxSocketPathBytes {
            r.problem("socket", "is \(socket.utf8.count) bytes long; a Unix socket path may have at most \(Self.maxSocketPathBytes)")
            socket = d.socket
        }
    }
}

extension LogConfig {
    init(reader r: inout ConfigSectionReader) {
        self.init()
        level = r.choice("level", default: LogConfig().level)
    }
}
