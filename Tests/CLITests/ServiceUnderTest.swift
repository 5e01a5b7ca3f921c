import ALSATestbed
import Basics
import Glibc
import Realtime
import TestProcess
import TestSupport
import Testing

/// `jarvis-voice run` as a child process on two paced test PCMs (the mic reads `mic`, the speaker writes
/// `played`), talking to the given Realtime and term-llm stand-ins, with its control socket, state
/// directory, secrets and log in `dir`. `name` keeps the PCMs and files of several services apart.
struct ServiceUnderTest {
    let process: BackgroundProcess
    let binary: String
    let config: String
    let log: String
    let mic: String
    let played: String

    /// - Parameters:
    ///   - mic: the paced mic's options; `infile` defaults to an empty file that follows appends.
    ///   - speakerLink: the speaker's acoustic link name (the mic hears it when its options name the same link).
    ///   - speaker: the paced speaker's options besides its outfile and link (a clock drift, a timeline).
    ///   - realtimeSection, mediaSection: extra lines for `[realtime]` and `[media]`; `snapcastSection` for
    ///     `[snapcast]` (left out when empty).
    static func start(
        in dir: TemporaryDirectory, name: String, realtime: RealtimeStandIn, jarvis: TermLLMStandIn,
        mic micOptions: PacedPCMOptions? = nil, speakerLink: String? = nil, speaker: PacedPCMOptions = PacedPCMOptions(),
        realtimeSection: String = "idle_timeout_s = 2",
        mediaSection: String = "", timersSection: [String] = [], snapcastSection: [String] = [],
        logLevel: String = "debug"
    ) throws -> ServiceUnderTest {
        let binary = try #require(ChildProcess.builtExecutable(), "jarvis-voice is not built next to the tests")
        var micOptions = micOptions ?? PacedPCMOptions(followInfile: true)
        if micOptions.infile == nil {
            micOptions.infile = dir.file("\(name)-mic.raw")
            try TestFiles.write([], to: dir.file("\(name)-mic.raw"))
        }
        let played = dir.file("\(name)-played.raw")
        let alsa = dir.file("\(name)-asound.conf")
        var speaker = speaker
        speaker.outfile = played
        speaker.link = speakerLink
        try TestPCMConfig.write([.paced(name: "\(name)_mic", micOptions), .paced(name: "\(name)_speaker", speaker)], to: alsa)
        let key = try secret(dir.file("openai.key"), realtime.script.apiKey)
        let token = try secret(dir.file("jarvis.token"), "s3cret")
        let config = dir.file("\(name)-config.toml")
        try TestFiles.write(
            Array(
                ServiceConfig(
                    capture: "\(name)_mic", playback: "\(name)_speaker", audio: ["realtime_priority = 0"], realtimeURL: realtime.url,
                    apiKeyFile: key, realtime: [realtimeSection], jarvisURL: jarvis.baseURL, tokenFile: token,
                    controlSocket: dir.file("control.sock"),
                    media: ["state_dir = \"\(dir.file("state"))\"", mediaSection], timers: timersSection, snapcast: snapcastSection,
                    logLevel: logLevel
                ).toml.utf8), to: config)
        let log = dir.file("\(name)-service.log")
        let process = try BackgroundProcess(
            [binary, "run", "--config", config],
            environment: [
                "ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:\(alsa)", "OPENAI_API_KEY": "",
                "CREDENTIALS_DIRECTORY": "", "NOTIFY_SOCKET": "", "WATCHDOG_USEC": ""
            ],
            stderr: .file(log))
        return ServiceUnderTest(
            process: process, binary: binary, config: config, log: log,
            mic: micOptions.infile ?? "", played: played)
    }

    private static func secret(_ path: String, _ value: String) throws -> String {
        try TestFiles.write(Array((value + "\n").utf8), to: path)
        chmod(path, 0o600)
        return path
    }

    func ctl(_ words: String...) async throws -> ChildProcess.Result {
        try await ChildProcess.run([binary, "ctl", "--config", config] + words)
    }

    /// Retries `ctl WORD` until the service answers (it binds the socket before opening the devices).
    func ctlWhenReady(_ word: String, timeout: Duration = hangTimeout) async throws -> Bool {
        try await waitUntil(timeout: timeout, interval: .milliseconds(20)) { try await ctl(word).status == 0 }
    }

    /// `ctl status` as JSON; nil while the service does not answer.
    func status() async throws -> JSONValue? {
        let result = try await ctl("status")
        guard result.status == 0 else { return nil }
        return JSONValue.parse(result.stdout)
    }

    /// Polls `ctl status` until `condition` holds; the status that satisfied it, or nil on timeout.
    func waitForStatus(timeout: Duration = hangTimeout, _ condition: (JSONValue) -> Bool) async throws -> JSONValue? {
        try await waitFor(timeout: timeout, interval: .milliseconds(20)) { () async throws -> JSONValue? in
            // Not `condition($0) ? $0 : nil`: JSONValue takes `nil` as JSON null, which would count as found.
            guard let status = try await status(), condition(status) else { return Optional<JSONValue>.none }
            return status
        }
    }

    /// Polls `ctl status` until the conversation is in `state`.
    func waitForState(_ state: String, timeout: Duration = hangTimeout) async -> Bool {
        (try? await waitForStatus(timeout: timeout) { $0["state"]?.stringValue == state }) != nil
    }

    /// Milliseconds of a `frequency` tone on the paced speaker, once at least `milliseconds` are there (or
    /// what is there when `timeout` passes).
    /// Each poll measures only the 20 ms blocks written since the last one (measuring the whole file every
    /// time was the suite's largest use of its own CPU).
    func heard(_ frequency: Double, atLeast milliseconds: Int, timeout: Duration = hangTimeout) async -> Int {
        let block = 1_920  // 20 ms of 48 kHz stereo: SpokenTurnTests.milliseconds' block
        var heard = 0
        var measured = 0
        _ = await waitUntil(timeout: timeout, interval: .milliseconds(200)) {
            let samples = (try? TestFiles.readSamples(played)) ?? []
            if samples.count < measured { (heard, measured) = (0, 0) }  // the file was started again
            let end = measured + (samples.count - measured) / block * block
            heard += SpokenTurnTests.milliseconds(of: frequency, inStereo48k: Array(samples[measured..<end]))
            measured = end
            return heard >= milliseconds
        }
        return heard
    }

    var logText: String { TestFiles.readText(log) ?? "" }

    /// Frames (48 kHz stereo) the paced speaker has played so far: the speaker file's length.
    var playedFrames: Int {
        var info = stat()
        return stat(played, &info) == 0 ? Int(info.st_size) / 4 : 0
    }

    /// Waits on the paced speaker's progress, not a clock, until `milliseconds` more output has played.
    func playOn(milliseconds: Int) async throws {
        let target = playedFrames + 48 * milliseconds
        let advanced = await waitUntil(timeout: .milliseconds(10 * max(milliseconds, 1_000)), interval: .milliseconds(20)) {
            playedFrames >= target
        }
        try #require(advanced, "the speaker stopped advancing")
    }

    /// Appends 16 kHz mono PCM16 to a following mic: heard from the next period on.
    func speak(_ samples: [Int16]) throws {
        let bytes = samples.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
        let fd = open(mic, O_WRONLY | O_APPEND)
        try #require(fd >= 0)
        defer { close(fd) }
        try #require(bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count)
    }

    /// SIGTERM; expects exit 0 within 5 s.
    func stop(sourceLocation: SourceLocation = #_sourceLocation) async {
        #expect(process.signal(SIGTERM), sourceLocation: sourceLocation)
        #expect(await process.wait(timeout: .seconds(5)) == 0, "log:\n\(logText)", sourceLocation: sourceLocation)
    }
}
