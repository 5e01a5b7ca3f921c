import Configuration

/// What a SIGHUP does with a new, valid configuration: the changed keys it applies at once and
/// the ones that need a restart (devices, URLs, secrets, the socket, the engine's session settings
/// are read once at start). Keys are named as in the file: `[section] key`.
struct ReloadPlan: Equatable {
    /// Keys applied at run time by `ConfigReloader`.
    static let liveKeys: Set<String> = ["[log] level", "[media] dj", "[media] radio_mode", "[media] loudness_target"]

    /// `[log] level = debug` (the values are settings, never secrets).
    var applied: [String]
    /// `[realtime] voice`
    var needRestart: [String]

    init(running: JarvisVoiceConfig, new: JarvisVoiceConfig) {
        let changed = running.changedKeys(to: new)
        applied = changed.filter { Self.liveKeys.contains($0.key) }.map { "\($0.key) = \($0.value)" }
        needRestart = changed.filter { !Self.liveKeys.contains($0.key) }.map(\.key)
    }

    var summary: String {
        if applied.isEmpty && needRestart.isEmpty { return "no changes" }
        var parts: [String] = []
        if !applied.isEmpty { parts.append("applied \(applied.joined(separator: ", "))") }
        if !needRestart.isEmpty {
            parts.append(
                "\(needRestart.joined(separator: ", ")) \(needRestart.count == 1 ? "needs" : "need") a restart (systemctl restart jarvis-voice)")
        }
        return parts.joined(separator: "; ")
    }
}
