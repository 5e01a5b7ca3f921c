import ALSATestbed
import Glibc
import TestProcess

/// The run's files: a private temporary directory for what the service reads and writes (configuration,
/// secrets 0600, the paced PCMs' ALSA configuration, the mic's input file, the control socket, media
/// state) and the results directory (service log, CSVs, summary).
struct SoakWorkspace {
    let path: String
    let results: String

    static let captureDevice = "soak_mic"
    static let playbackDevice = "soak_speaker"

    init(results: String) throws(SoakError) {
        var template = Array("/tmp/jarvis-voice-soak-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw SoakError("cannot create a temporary directory under /tmp: \(String(cString: strerror(errno)))")
        }
        path = String(cString: made)
        self.results = results
        mkdir(results, 0o755)
        guard mkdir(file("state"), 0o700) == 0 else { throw SoakError("mkdir \(file("state")): \(String(cString: strerror(errno)))") }
    }

    func file(_ name: String) -> String { path + "/" + name }
    func result(_ name: String) -> String { results + "/" + name }

    var config: String { file("config.toml") }
    var alsaConfig: String { file("asound.conf") }
    var micInput: String { file("mic.raw") }
    var serviceLog: String { result("service.log") }

    /// Secrets, the ALSA configuration (paced mic following appends, paced speaker discarding what it
    /// plays: an hour of 48 kHz stereo would be 690 MB) and the service configuration.
    func writeConfiguration(
        realtimeURL: String, apiKey: String, jarvisURL: String, jarvisToken: String,
        pluginPath: String
    ) throws(SoakError) {
        try write(secret: apiKey, to: file("openai.key"))
        try write(secret: jarvisToken, to: file("jarvis.token"))
        try write("", to: micInput)
        try write(
            TestPCMConfig.text(
                [
                    .paced(name: Self.captureDevice, PacedPCMOptions(infile: micInput, followInfile: true)),
                    .paced(name: Self.playbackDevice, PacedPCMOptions())
                ], pluginPath: pluginPath), to: alsaConfig)
        try write(
            """
            # Written by jarvis-voice-soak: the real service against in-process stand-ins.
            [audio]
            capture_device = "\(Self.captureDevice)"
            playback_device = "\(Self.playbackDevice)"
            capture_rate = 16000
            capture_channels = 1
            playback_rate = 48000
            playback_channels = 2
            realtime_priority = 0
            [realtime]
            url = "\(realtimeURL)"
            api_key_file = "\(file("openai.key"))"
            idle_timeout_s = 2
            [jarvis]
            url = "\(jarvisURL)"
            token_file = "\(file("jarvis.token"))"
            [button]
            enabled = false
            [media]
            state_dir = "\(file("state"))"
            station_catalog_url = ""
            [control]
            socket = "\(file("control.sock"))"
            [log]
            level = "info"

            """, to: config)
    }

    /// The environment for `jarvis-voice run`: the private ALSA configuration; nothing that would
    /// override the secrets or talk to systemd.
    var serviceEnvironment: [String: String] {
        [
            "ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:\(alsaConfig)", "OPENAI_API_KEY": "",
            "CREDENTIALS_DIRECTORY": "", "NOTIFY_SOCKET": "", "WATCHDOG_USEC": ""
        ]
    }

    /// Appends 16 kHz mono PCM16 to the mic's input file: heard from the next period on.
    func speak(_ samples: [Int16]) throws(SoakError) {
        let fd = open(micInput, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { throw SoakError("open \(micInput): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let written = samples.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == samples.count * 2 else { throw SoakError("write \(micInput): short write") }
    }

    func write(_ text: String, to path: String) throws(SoakError) {
        do { try TestFiles.write(Array(text.utf8), to: path) } catch { throw SoakError("\(error)") }
    }

    private func write(secret: String, to path: String) throws(SoakError) {
        do { try TestFiles.writeSecret(secret, to: path) } catch { throw SoakError("\(error)") }
    }

    /// Removes the temporary directory (one level of subdirectories); the results stay.
    func remove() { TestFiles.removeTree(path) }
}
