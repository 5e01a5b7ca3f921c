import ALSATestbed
import Glibc
import TestProcess

/// The demo's temporary directory: configuration, secrets (0600), the private ALSA configuration
/// with the paced file-backed PCMs, the mic's input file, the speaker's output file, the service log.
struct DemoWorkspace {
    let path: String

    static let captureDevice = "demo_mic"
    static let playbackDevice = "demo_speaker"
    /// The capture and playback shapes written into the configuration (the files are raw S16_LE).
    static let captureRate = 16_000
    static let playbackRate = 48_000
    static let playbackChannels = 2

    init() throws(DemoError) {
        var template = Array("/tmp/jarvis-voice-demo-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw DemoError("cannot create a temporary directory under /tmp: \(String(cString: strerror(errno)))")
        }
        path = String(cString: made)
        guard mkdir(stateDirectory, 0o700) == 0 else {
            throw DemoError("mkdir \(stateDirectory): \(String(cString: strerror(errno)))")
        }
    }

    func file(_ name: String) -> String { path + "/" + name }

    var config: String { file("config.toml") }
    var alsaConfig: String { file("asound.conf") }
    var micInput: String { file("mic.raw") }
    var speakerOutput: String { file("speaker.raw") }
    var serviceLog: String { file("service.log") }
    var controlSocket: String { file("control.sock") }
    var stateDirectory: String { file("state") }

    /// Writes the secrets (mode 0600), the ALSA configuration and the service configuration.
    func writeConfiguration(
        realtimeURL: String, apiKey: String, jarvisURL: String, jarvisToken: String,
        pluginPath: String
    ) throws(DemoError) {
        let key = file("openai.key")
        let token = file("jarvis.token")
        try writeSecret(apiKey, to: key)
        try writeSecret(jarvisToken, to: token)
        let alsa = TestPCMConfig.text(
            [
                .paced(name: Self.captureDevice, PacedPCMOptions(infile: micInput)),
                .paced(name: Self.playbackDevice, PacedPCMOptions(outfile: speakerOutput))
            ], pluginPath: pluginPath)
        try write(alsa, to: alsaConfig)
        try write(
            """
            # Written by `jarvis-voice-demo`: the real service against in-process stand-ins.
            [audio]
            capture_device = "\(Self.captureDevice)"
            playback_device = "\(Self.playbackDevice)"
            capture_rate = \(Self.captureRate)
            capture_channels = 1
            playback_rate = \(Self.playbackRate)
            playback_channels = \(Self.playbackChannels)
            realtime_priority = 0
            [realtime]
            url = "\(realtimeURL)"
            api_key_file = "\(key)"
            log_transcripts = true
            idle_timeout_s = 2
            [jarvis]
            url = "\(jarvisURL)"
            token_file = "\(token)"
            [button]
            enabled = false
            [media]
            state_dir = "\(stateDirectory)"
            [control]
            socket = "\(controlSocket)"

            """, to: config)
    }

    /// The environment for `jarvis-voice run`: the private ALSA configuration, and nothing that
    /// would override the demo's secrets or talk to systemd.
    var serviceEnvironment: [String: String] {
        [
            "ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:\(alsaConfig)", "OPENAI_API_KEY": "",
            "CREDENTIALS_DIRECTORY": "", "NOTIFY_SOCKET": ""
        ]
    }

    func write(_ text: String, to path: String) throws(DemoError) {
        do { try TestFiles.write(Array(text.utf8), to: path) } catch { throw DemoError("\(error)") }
    }

    private func writeSecret(_ secret: String, to path: String) throws(DemoError) {
        do { try TestFiles.writeSecret(secret, to: path) } catch { throw DemoError("\(error)") }
    }

    /// Removes the directory and everything in it (it has one level of subdirectories).
    func remove() { TestFiles.removeTree(path) }

    /// The directory holding this executable, where SwiftPM also puts `jarvis-voice` and the plugin.
    static func executableDirectory() throws(DemoError) -> String {
        guard let executable = executablePath(), let slash = executable.lastIndex(of: "/") else {
            throw DemoError("cannot read /proc/self/exe to find jarvis-voice and the paced test PCM plugin")
        }
        return String(executable[..<slash])
    }

    /// The paced test PCM plugin, which SwiftPM builds next to the executables.
    static func pacedPluginPath() throws(DemoError) -> String {
        let plugin = try executableDirectory() + "/" + PacedPlugin.fileName
        guard access(plugin, R_OK) == 0 else {
            throw DemoError(
                """
                the paced test PCM plugin \(plugin) is missing; the demo needs the plugin built next to \
                jarvis-voice-demo: run `swift build` in the checkout (it builds the asound_module_pcm_jvpaced \
                product) and start .build/debug/jarvis-voice-demo
                """)
        }
        return plugin
    }

    /// The service under demonstration: the `jarvis-voice` next to this executable.
    static func serviceExecutablePath() throws(DemoError) -> String {
        let service = try executableDirectory() + "/jarvis-voice"
        guard access(service, X_OK) == 0 else {
            throw DemoError(
                """
                \(service) is missing; the demo runs the jarvis-voice built next to it: run `swift build` \
                in the checkout and start .build/debug/jarvis-voice-demo
                """)
        }
        return service
    }

    static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
