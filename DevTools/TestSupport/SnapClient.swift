import TestProcess

/// Debian's real `snapclient` (0.26) as a test's reference player: it plays the snapserver's stream on
/// the ALSA PCM `pcm` that the ALSA configuration `alsaConfig` defines (a paced test device, whose
/// timeline tells when each frame played).
public enum SnapClient {
    public static let program = "/usr/bin/snapclient"

    public static func start(
        port: Int, id: String, pcm: String, alsaConfig: String, logsIn directory: TemporaryDirectory
    ) throws -> ServerProcess {
        try ServerProcess(
            [
                "/usr/bin/env", "ALSA_CONFIG_PATH=/usr/share/alsa/alsa.conf:\(alsaConfig)", program, "-h", "127.0.0.1", "-p", "\(port)",
                "--hostID", id, "-s", pcm, "--player", "alsa"
            ], name: id, logsIn: directory)
    }
}
