import ALSATestbed
import Control
import Glibc
import TestProcess
import TestSupport
import Testing

/// `jarvis-voice doctor` as a subprocess: test PCMs from a private ALSA configuration, the term-llm
/// stand-in as Jarvis, a loopback stand-in for the OpenAI models endpoint.
@Suite(.serialized) struct DoctorCommandTests {
    let dir = TemporaryDirectory()
    static let apiKey = "sk-test-doctor-0123456789"

    /// `serviceUser` "": judge secret files as the test process (the files live in a private /tmp
    /// directory that the service user could not see).
    func doctor(config: String, alsaConfig: String? = nil, serviceUser: String = "") async throws -> ChildProcess.Result {
        let binary = try #require(ChildProcess.builtExecutable(), "jarvis-voice is not built next to the tests")
        var environment = ["OPENAI_API_KEY": "", "CREDENTIALS_DIRECTORY": ""]
        if let alsaConfig { environment["ALSA_CONFIG_PATH"] = "/usr/share/alsa/alsa.conf:\(alsaConfig)" }
        return try await ChildProcess.run([binary, "doctor", "--config", config, "--service-user", serviceUser], environment: environment)
    }

    func lines(_ result: ChildProcess.Result) -> [String] { result.stdout.split(separator: "\n").map(String.init) }

    func line(_ result: ChildProcess.Result, _ prefix: String) -> String? { lines(result).first { $0.hasPrefix(prefix) } }

    @Test func allChecksPass() async throws {
        let jarvis = try await TermLLMStandIn.start()
        let models = try await ModelsStandIn.start(key: Self.apiKey)
        defer {
            Task {
                await jarvis.stop()
                await models.stop()
            }
        }
        let alsa = dir.file("asound.conf")
        try TestPCMConfig.write(
            [
                .file(name: "doctor_mic", infile: "/dev/zero", outfile: nil),
                .file(name: "doctor_speaker", infile: nil, outfile: dir.file("played.raw"))
            ], to: alsa)
        let key = dir.write("openai.key", Self.apiKey + "\n")
        let token = dir.write("jarvis.token", "s3cret\n")
        let config = ServiceConfig(
            capture: "doctor_mic", playback: "doctor_speaker", realtimeURL: models.realtimeURL, apiKeyFile: key,
            jarvisURL: jarvis.baseURL, tokenFile: token, controlSocket: dir.file("run/control.sock")
        ).write(to: dir)
        let result = try await doctor(config: config, alsaConfig: alsa)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(line(result, "✓ config: ") == "✓ config: \(config) is valid")
        #expect(line(result, "✓ OpenAI API key: ") == "✓ OpenAI API key: found (file \(key), mode 0600)")
        #expect(line(result, "✓ Jarvis token: ") == "✓ Jarvis token: found (file \(token), mode 0600)")
        #expect(line(result, "✓ control socket: ") == "✓ control socket: \(dir.file("run")) will be created (\(dir.path) is writable)")
        #expect(line(result, "✓ capture device: ")?.hasPrefix("✓ capture device: \"doctor_mic\" opens") == true)
        #expect(line(result, "✓ playback device: ")?.hasPrefix("✓ playback device: \"doctor_speaker\" opens") == true)
        #expect(line(result, "✓ button GPIO: ")?.contains("disabled") == true)
        #expect(line(result, "✓ Realtime API: ") == "✓ Realtime API: 127.0.0.1 accepts the API key (GET /v1/models -> 200)")
        #expect(line(result, "✓ Realtime model: ") == "✓ Realtime model: gpt-realtime-2.1-mini is available to this key")
        #expect(line(result, "✓ Jarvis: ")?.contains("is up") == true)
        #expect(lines(result).last == "all 10 checks passed")
        #expect(!result.stdout.contains(Self.apiKey) && !result.stdout.contains("s3cret"))
    }

    /// The doctor asks the API whether this key may use the configured model (`GET /v1/models/{id}`).
    @Test func aModelTheAPIDoesNotOfferFailsWithItsReplacement() async throws {
        let models = try await ModelsStandIn.start(key: Self.apiKey)
        defer { Task { await models.stop() } }
        let key = dir.write("openai.key", Self.apiKey + "\n")
        let config = ServiceConfig(
            capture: "no_such_mic", playback: "no_such_speaker", realtimeURL: models.realtimeURL, apiKeyFile: key,
            realtime: [#"model = "gpt-realtime""#], jarvisURL: "http://127.0.0.1:9/ui"
        ).write(to: dir)
        let result = try await doctor(config: config)
        #expect(
            line(result, "✗ Realtime model: ")
                == #"✗ Realtime model: the API does not offer gpt-realtime to this key (GET /v1/models/gpt-realtime -> 404) (fix: set [realtime] model = "gpt-realtime-2.1" (`jarvis-voice models` lists the current ones))"#,
            "\(result.stdout)")
        #expect(!result.stdout.contains(Self.apiKey))
    }

    @Test func missingDevicesBadKeyAndDeadJarvisFail() async throws {
        let models = try await ModelsStandIn.start(key: "sk-the-right-one")
        defer { Task { await models.stop() } }
        let key = dir.write("openai.key", Self.apiKey)
        let loose = dir.write("jarvis.token", "s3cret", mode: 0o644)
        let notADirectory = dir.write("run", "a file where the socket directory should be")
        let config = ServiceConfig(
            capture: "no_such_mic", playback: "no_such_speaker", realtimeURL: models.realtimeURL, apiKeyFile: key,
            jarvisURL: "http://127.0.0.1:9/ui", tokenFile: loose, button: ["enabled = true", "chip = \"\(dir.file("gpiochip9"))\""],
            controlSocket: "\(notADirectory)/control.sock"
        ).write(to: dir)
        let result = try await doctor(config: config)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(line(result, "✓ OpenAI API key: ") != nil)
        #expect(line(result, "✗ Jarvis token: ")?.contains("chmod 600 \(loose)") == true)
        #expect(line(result, "✗ control socket: ")?.contains("\(notADirectory): not a directory") == true)
        #expect(line(result, "✗ capture device: ")?.contains("no_such_mic") == true)
        #expect(line(result, "✗ capture device: ")?.contains("(fix: run `jarvis-voice devices` and set [audio] capture_device)") == true)
        #expect(line(result, "✗ playback device: ")?.contains("no_such_speaker") == true)
        #expect(
            line(result, "✗ button GPIO: ")
                == "✗ button GPIO: cannot open \(dir.file("gpiochip9")): No such file or directory (fix: set [button] chip (ls /dev/gpiochip*), add the service user to group gpio, or set [button] enabled = false)"
        )
        #expect(line(result, "✗ Realtime API: ") == "✗ Realtime API: 127.0.0.1 rejected the API key (401) (fix: put a valid key in file \(key))")
        #expect(line(result, "✗ Jarvis: ")?.contains("unreachable") == true)
        #expect(lines(result).last == "7 of 9 checks failed")
        #expect(!result.stdout.contains(Self.apiKey) && !result.stdout.contains("s3cret"))
    }

    /// Root can read every file; the service user cannot: the doctor says what the service will get.
    @Test(.enabled(if: getuid() == 0 && getpwnam("nobody") != nil, "needs root and the user nobody"))
    func secretsAreJudgedAsTheServiceUser() async throws {
        let key = dir.write("openai.key", Self.apiKey)
        let config = ServiceConfig(
            capture: "no_such_mic", playback: "no_such_speaker", realtimeURL: "ws://127.0.0.1:9/v1/realtime", apiKeyFile: key,
            jarvisURL: "http://127.0.0.1:9/ui", controlSocket: dir.file("run/control.sock")
        ).write(to: dir)
        let asRoot = try await doctor(config: config)
        #expect(line(asRoot, "✓ OpenAI API key: ") == "✓ OpenAI API key: found (file \(key), mode 0600)")
        let asService = try await doctor(config: config, serviceUser: "nobody")
        #expect(
            line(asService, "✗ OpenAI API key: ")
                == "✗ OpenAI API key: the service user nobody cannot read secret file \(key): the service has its own /tmp (PrivateTmp=yes); make it readable by that user only, or leave the setting empty and use the credential \"openai-api-key\" (fix: make the file readable by nobody only, or leave the setting empty and use the credential)",
            "\(asService.stdout)")
        #expect(!asService.stdout.contains(Self.apiKey))
    }

    @Test func invalidConfigExits78() async throws {
        let config = dir.write("config.toml", "[audio]\nperiod_ms = 500\n[jarvis]\nurl = \"http://jarvis.lan/ui\"\n")
        let result = try await doctor(config: config)
        #expect(result.status == 78)
        #expect(lines(result).first == "✗ config: \(config):2: [audio] period_ms must be between 1 and 100, got 500")
    }
}

extension DoctorCommandTests {
    @Test func aRunningServiceIsNamed() async throws {
        let (result, socket) = try await doctorWhileServing(RecordingHandler())
        #expect(
            line(result, "✓ control socket: ")
                == "✓ control socket: jarvis-voice is running and answers on \(socket) (state idle); device checks may report busy")
    }

    /// A service that accepts but never answers is not taken for a free socket path.
    @Test func aServiceThatDoesNotAnswerIsReported() async throws {
        let (result, socket) = try await doctorWhileServing(
            RecordingHandler { _ in
                // Holds the answer until the server stops (the iteration ends when its task is cancelled).
                let (serverStopped, open) = AsyncStream<Never>.makeStream()
                for await _ in serverStopped {}
                open.finish()
                return .done("too late")
            })
        #expect(result.status != 0)
        #expect(
            line(result, "✗ control socket: ") == "✗ control socket: a program listens on \(socket) but did not answer status "
                + "within 5 s (fix: is jarvis-voice stuck? read journalctl -u jarvis-voice, then systemctl restart jarvis-voice)")
    }

    /// `doctor` while a control server with `handler` listens on the configured socket (no devices, nothing
    /// reachable: only the control socket's line matters).
    func doctorWhileServing(_ handler: RecordingHandler) async throws -> (ChildProcess.Result, socket: String) {
        let socket = dir.file("control.sock")
        let server = try await ControlServer.bind(path: socket, handler: handler, executor: StandInExecutor.shared)
        let config = ServiceConfig(
            capture: "no_such_mic", playback: "no_such_speaker", realtimeURL: "ws://127.0.0.1:9/v1/realtime",
            jarvisURL: "http://127.0.0.1:9/ui", controlSocket: socket
        ).write(to: dir, as: "serving.toml")
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            let result = try await doctor(config: config)
            group.cancelAll()
            try await group.waitForAll()
            return (result, socket)
        }
    }

    /// A key exported in the caller's shell is no key for the service (systemd does not pass it on).
    @Test func aKeyOnlyInTheCallersShellIsInvisibleToTheService() async throws {
        let binary = try #require(ChildProcess.builtExecutable(), "jarvis-voice is not built next to the tests")
        try #require(access("/etc/credstore/openai-api-key", F_OK) != 0, "this machine has a real credential")
        let config = ServiceConfig(
            capture: "no_such_mic", playback: "no_such_speaker", realtimeURL: "ws://127.0.0.1:9/v1/realtime",
            jarvisURL: "http://127.0.0.1:9/ui", controlSocket: dir.file("run/control.sock")
        ).write(to: dir)
        let result = try await ChildProcess.run(
            [binary, "doctor", "-c", config, "--service-user", ""],
            environment: ["OPENAI_API_KEY": Self.apiKey, "CREDENTIALS_DIRECTORY": ""])
        #expect(
            line(result, "✗ OpenAI API key: ") == "✗ OpenAI API key: found only in this shell's OPENAI_API_KEY, which the "
                + "service never sees (fix: put the key in /etc/credstore/openai-api-key (root, mode 0600))", "\(result.stdout)")
        #expect(!result.stdout.contains(Self.apiKey))
    }

    @Test func anUnknownServiceUserIsAUsageError() async throws {
        let config = dir.write("config.toml", "[jarvis]\nurl = \"http://jarvis.lan/ui\"\n")
        let result = try await doctor(config: config, serviceUser: "no-such-user-here")
        #expect(result.status == 64)
        #expect(result.stderr.contains(#"there is no user "no-such-user-here" on this system"#), "\(result.stderr)")
    }

    /// Run by a normal user, a root-only credential is "not checked (needs root)": its own kind of line,
    /// not a failure, and never advice to loosen the file's permissions.
    @Test(
        .enabled(
            if: getuid() == 0 && getpwnam("nobody") != nil && access("/usr/bin/setpriv", X_OK) == 0,
            "needs root (to become nobody), the user nobody and setpriv"))
    func aRootOnlyCredentialIsNotCheckedWithoutRoot() async throws {
        let binary = try #require(ChildProcess.builtExecutable(), "jarvis-voice is not built next to the tests")
        let key = dir.write("openai.key", Self.apiKey)  // 0600 root: what /etc/credstore holds
        let config = dir.write("config.toml", "[realtime]\napi_key_file = \"\(key)\"\n[jarvis]\nurl = \"http://127.0.0.1:9/ui\"\n")
        chmod(dir.path, 0o755)
        chmod(config, 0o644)
        let result = try await ChildProcess.run(
            ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", binary, "doctor", "-c", config, "--service-user", ""],
            environment: ["OPENAI_API_KEY": "", "CREDENTIALS_DIRECTORY": ""])
        let keyLine = try #require(line(result, "– OpenAI API key: "), "\(result.stdout)\(result.stderr)")
        #expect(
            keyLine.hasPrefix("– OpenAI API key: not checked (needs root: ") && keyLine.hasSuffix("(to check: sudo jarvis-voice doctor)"),
            "\(keyLine)")
        #expect(!result.stdout.contains("chmod") && !result.stdout.contains("make the file readable"), "\(result.stdout)")
        #expect(lines(result).last?.hasSuffix("; 1 not checked") == true, "\(result.stdout)")
    }
}
