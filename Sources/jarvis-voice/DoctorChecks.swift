import ALSA
import Basics
import Configuration
import Control
import HTTP
import Jarvis
import Realtime

/// The checks behind `jarvis-voice doctor`, in report order. Never prints a secret's value.
struct DoctorChecks {
    let config: JarvisVoiceConfig
    let configPath: String
    let environment: [String: String]?
    /// The user the unit runs as: secret files are judged by what it can read, not by what the
    /// doctor's caller (often root) can. "" = judge as the caller.
    var serviceUser = "jarvis-voice"

    func run() async -> DoctorReport {
        var report = DoctorReport()
        report.pass("config", "\(configPath) is valid")
        let (openAIKey, jarvisToken) = checkSecrets(&report)
        checkControlSocket(&report)
        checkPCM(&report, stream: .capture)
        checkPCM(&report, stream: .playback)
        checkGPIO(&report)
        let http: HTTPClient
        do {
            http = try HTTPClient(threadName: "doctor-http")
        } catch {
            report.fail("network checks", "cannot start the HTTP client: \(error)", fix: "check that libcurl is installed")
            return report
        }
        defer { http.shutdown() }
        await checkRealtime(&report, key: openAIKey, http: http)
        await checkJarvis(&report, token: jarvisToken, http: http)
        return report
    }

    /// What the service will get: the configured files as the service user can read them, then the
    /// credentials the unit loads (outside the service: from systemd's credential store).
    private func checkSecrets(_ report: inout DoctorReport) -> (Secret?, Secret?) {
        let environment = environment ?? ProcessEnvironment.current()
        let inService = !(environment["CREDENTIALS_DIRECTORY"] ?? "").isEmpty
        let loader = SecretLoader(
            environment: environment,
            credentialDirectories: inService ? nil : SecretLoader.systemdCredentialSearchPath,
            serviceAccess: ServiceFileAccess.user(serviceUser))
        let unreadableFix =
            "make the file readable by \(serviceUser.isEmpty ? "the service user" : serviceUser) only, or leave the setting empty and use the credential"
        var openAIKey: Secret?
        do {
            let key = try loader.openAIKey(config.realtime)
            if case .environment(let variable) = key.secret.source, !inService {
                report.fail(
                    "OpenAI API key", "found only in this shell's \(variable), which the service never sees",
                    fix: "put the key in /etc/credstore/\(SecretLoader.openAICredential) (root, mode 0600)")
            } else {
                openAIKey = key.secret
                report.pass("OpenAI API key", "found (\(describe(key)))")
            }
        } catch  where error.isUnreadable && !DoctorCalls.isRoot {
            report.notChecked("OpenAI API key", "needs root: \(error.description)", howToCheck: "sudo jarvis-voice doctor")
        } catch {
            report.fail(
                "OpenAI API key", error.description,
                fix: error.isPermissionProblem
                    ? "chmod 600 the file and chown it to the service user"
                    : error.isUnreadable
                        ? unreadableFix
                        : config.realtime.apiKeyFile.isEmpty
                            ? "put the key in /etc/credstore/\(SecretLoader.openAICredential) (root, mode 0600)"
                            : "put the key in \(config.realtime.apiKeyFile) (mode 0600, owned by the service user)")
        }
        var jarvisToken: Secret?
        do {
            if let token = try loader.jarvisToken(config.jarvis) {
                jarvisToken = token.secret
                report.pass("Jarvis token", "found (\(describe(token)))")
            } else {
                report.pass("Jarvis token", "none configured (Jarvis is called without a token)")
            }
        } catch  where error.isUnreadable && !DoctorCalls.isRoot {
            report.notChecked("Jarvis token", "needs root: \(error.description)", howToCheck: "sudo jarvis-voice doctor")
        } catch {
            let file = config.jarvis.tokenFile.isEmpty ? "/etc/credstore/\(SecretLoader.jarvisCredential)" : config.jarvis.tokenFile
            report.fail(
                "Jarvis token", error.description,
                fix: error.isUnreadable ? unreadableFix : "chmod 600 \(file), or fix its contents")
        }
        return (openAIKey, jarvisToken)
    }

    private func describe(_ loaded: LoadedSecret) -> String {
        let note = loaded.skipped.map { "; passed over: \($0)" } ?? ""
        return describe(loaded.secret) + note
    }

    private func describe(_ secret: Secret) -> String {
        guard case .file(let path) = secret.source, let mode = DoctorCalls.mode(of: path) else {
            return secret.source.description
        }
        return "\(secret.source), mode 0\(String(mode, radix: 8))"
    }

    /// How long a running service may take to answer `status` (a busy Pi Zero answers in well under 1 s).
    static let statusTimeout = Duration.seconds(5)

    private func checkControlSocket(_ report: inout DoctorReport) {
        let socket = config.control.socket
        do throws(ControlClientError) {
            if case .ok(let status) = try ControlClient.send(.status, to: socket, timeout: Self.statusTimeout) {
                let state = status["state"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? "?"
                report.pass("control socket", "jarvis-voice is running and answers on \(socket) (state \(state)); device checks may report busy")
                return
            }
        } catch .timedOut {
            report.fail(
                "control socket",
                "a program listens on \(socket) but did not answer status within "
                    + "\(Self.statusTimeout.wholeMilliseconds / 1000) s",
                fix: "is jarvis-voice stuck? read journalctl -u jarvis-voice, then systemctl restart jarvis-voice")
            return
        } catch .permissionDenied {
            report.fail(
                "control socket", "permission denied on \(socket)",
                fix: "run doctor as root or as a member of the service's group (jarvis-voice)")
            return
        } catch {
            // Nothing listens there (or not a jarvis-voice): can the service create its socket?
        }
        let directory = DoctorCalls.parent(of: socket)
        switch DoctorCalls.access(toCreateIn: directory) {
        case .writable:
            report.pass("control socket", "\(directory) is writable")
        case .creatable(let ancestor):
            report.pass("control socket", "\(directory) will be created (\(ancestor) is writable)")
        case .notWritable(let blocked, let reason):
            report.fail(
                "control socket", "cannot create \(config.control.socket): \(blocked): \(reason)",
                fix: "run as the service user, use RuntimeDirectory=jarvis-voice in the unit, or set [control] socket")
        }
    }

    private func checkPCM(_ report: inout DoctorReport, stream: PCMStream) {
        let audio = config.audio
        let name = stream == .capture ? audio.captureDevice : audio.playbackDevice
        let key = stream == .capture ? "capture_device" : "playback_device"
        let configuration =
            stream == .capture
            ? PCMConfiguration(
                sampleRate: audio.captureRate, channels: audio.captureChannels,
                periodMicroseconds: audio.periodMs * 1000, periods: audio.bufferPeriods)
            : PCMConfiguration(
                sampleRate: audio.playbackRate, channels: audio.playbackChannels,
                periodMicroseconds: audio.periodMs * 1000, periods: audio.bufferPeriods)
        let label = "\(stream) device"
        do {
            let pcm = try PCM(device: PCMDevice(name: name), stream: stream, configuration: configuration)
            report.pass(label, "\"\(name)\" opens (\(pcm.parameters))")
        } catch {
            let fix =
                error.kind == .busy
                ? "another program (or a running jarvis-voice) holds it; stop it or use a dsnoop/dmix PCM"
                : "run `jarvis-voice devices` and set [audio] \(key)"
            report.fail(label, "\(error)", fix: fix)
        }
    }

    private func checkGPIO(_ report: inout DoctorReport) {
        if config.button.enabled {
            let chip = config.button.chip
            if let reason = DoctorCalls.openCharacterDevice(chip) {
                report.fail(
                    "button GPIO", "cannot open \(chip): \(reason)",
                    fix: "set [button] chip (ls /dev/gpiochip*), add the service user to group gpio, or set [button] enabled = false")
            } else {
                report.pass("button GPIO", "\(chip) opens (line \(config.button.line))")
            }
        } else {
            report.pass("button GPIO", "disabled ([button] enabled = false; control socket only)")
        }
        if config.led.enabled {
            let chip = config.led.chip
            if let reason = DoctorCalls.openCharacterDevice(chip) {
                report.fail("LED GPIO", "cannot open \(chip): \(reason)", fix: "set [led] chip, or [led] enabled = false")
            } else {
                report.pass("LED GPIO", "\(chip) opens")
            }
        }
    }

    /// `wss://host/v1/realtime` -> `https://host/v1/models` (`ws://` loopback -> `http://`).
    static func modelsURL(fromRealtimeURL url: String) -> String? {
        guard var parsed = try? WebURL(parsing: url, rules: .realtime) else { return nil }
        parsed.scheme = parsed.scheme.usesTLS ? .https : .http
        var path = parsed.path
        while path.hasSuffix("/") { path.removeLast() }
        parsed.pathAndQuery = path.hasSuffix("/realtime") ? String(path.dropLast("/realtime".count)) + "/models" : "/v1/models"
        return parsed.absoluteString
    }

    private func checkRealtime(_ report: inout DoctorReport, key: Secret?, http: HTTPClient) async {
        let name = "Realtime API"
        guard let url = Self.modelsURL(fromRealtimeURL: config.realtime.url) else {
            report.fail(name, "cannot derive an HTTP URL from \(config.realtime.url)", fix: "set [realtime] url to wss://api.openai.com/v1/realtime")
            return
        }
        guard let key else {
            report.fail(name, "not checked: no API key", fix: "see the OpenAI API key line above")
            return
        }
        let timeout = config.realtime.connectTimeout
        let request = HTTPRequest(
            url: url, headers: [HTTPHeader("Authorization", "Bearer \(key.unredacted)")],
            connectTimeout: timeout, inactivityTimeout: timeout, totalTimeout: timeout + .seconds(5),
            maxRedirects: 0)
        do {
            let response = try await http.execute(request)
            _ = try? await response.collect(upTo: 4 << 20)
            switch response.status {
            case 200:
                report.pass(name, "\(request.host) accepts the API key (GET \(Self.path(of: url)) -> 200)")
                await checkModel(&report, modelsURL: url, key: key, http: http)
            case 401:
                report.fail(name, "\(request.host) rejected the API key (401)", fix: "put a valid key in \(key.source)")
            case 403:
                report.fail(name, "\(request.host) refused access (403: project or region not allowed)", fix: "check the key's project permissions")
            case 429:
                report.fail(name, "\(request.host) answered 429 (rate limit or quota exhausted)", fix: "check billing and usage limits")
            case let status:
                report.fail(name, "GET \(Self.path(of: url)) on \(request.host) returned \(status)", fix: "check [realtime] url")
            }
        } catch {
            report.fail(name, "\(request.host) is unreachable (offline?): \(error)", fix: "check the network, DNS and any proxy")
        }
    }

    /// Whether the configured model is offered to this key (`GET /v1/models/{id}`), and its announced
    /// shutdown (`shutdown_date`, or this release's table).
    private func checkModel(_ report: inout DoctorReport, modelsURL: String, key: Secret, http: HTTPClient) async {
        let name = "Realtime model"
        let model = config.realtime.model
        let replacement = RealtimeModels.named(model)?.replacement ?? RealtimeModels.defaultID
        let fix = "set [realtime] model = \"\(replacement)\" (`jarvis-voice models` lists the current ones)"
        guard !model.isEmpty, model.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) }) else {
            report.fail(name, "\"\(model)\" is not a model name", fix: fix)
            return
        }
        let timeout = config.realtime.connectTimeout
        let request = HTTPRequest(
            url: modelsURL + "/" + model, headers: [HTTPHeader("Authorization", "Bearer \(key.unredacted)")],
            connectTimeout: timeout, inactivityTimeout: timeout, totalTimeout: timeout + .seconds(5),
            maxRedirects: 0)
        do {
            let response = try await http.execute(request)
            let body = (try? await response.collect(upTo: 64 << 10)) ?? []
            switch response.status {
            case 200:
                let announced = JSONValue.parse(String(decoding: body, as: UTF8.self))?["shutdown_date"]?.stringValue.flatMap(CalendarDay.init(iso:))
                if let shutdown = announced ?? RealtimeModels.named(model)?.shutdown {
                    let today = CalendarDay.today()
                    if shutdown <= today {
                        report.fail(name, "\(model) was shut down on \(shutdown)", fix: fix)
                    } else {
                        report.pass(name, "\(model) is available to this key until \(shutdown) (in \(today.days(until: shutdown)) days); then \(fix)")
                    }
                } else {
                    report.pass(name, "\(model) is available to this key")
                }
            case 404:
                report.fail(name, "the API does not offer \(model) to this key (GET \(Self.path(of: request.url)) -> 404)", fix: fix)
            case let status:
                report.fail(name, "GET \(Self.path(of: request.url)) on \(request.host) returned \(status)", fix: "check [realtime] url and model")
            }
        } catch {
            report.fail(name, "\(request.host) did not answer for \(model): \(error)", fix: "check the network, DNS and any proxy")
        }
    }

    private static func path(of url: String) -> String {
        guard let separator = url.firstRange(of: "://") else { return url }
        let rest = url[separator.upperBound...]
        return rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
    }

    private func checkJarvis(_ report: inout DoctorReport, token: Secret?, http: HTTPClient) async {
        let jarvis = config.jarvis
        let settings = JarvisSettings(
            url: jarvis.url, tokenFile: jarvis.tokenFile,
            connectTimeout: .seconds(min(5, jarvis.inactivityTimeoutSeconds)))
        let client = JarvisClient(settings: settings, token: token?.unredacted ?? "", http: http)
        let health = await client.probeHealth()
        switch health.status {
        case .ok:
            report.pass("Jarvis", health.summary)
        case .tokenRejected:
            let file = jarvis.tokenFile.isEmpty ? "/etc/credstore/\(SecretLoader.jarvisCredential)" : jarvis.tokenFile
            report.fail("Jarvis", health.summary, fix: "put the server's token in \(file) (mode 0600)")
        case .wrongURL:
            report.fail("Jarvis", health.summary, fix: "set [jarvis] url to the server's base URL including its base path")
        case .unreachable:
            report.fail("Jarvis", health.summary, fix: "is term-llm serve running and reachable from here? check [jarvis] url")
        }
    }
}
