import Configuration

/// What a SIGHUP does with a new, valid configuration: the changed keys it applies at once and
/// the ones that need a restart (devices, URLs, secrets, the socket, the engine's session settings
/// are read once at start). Keys are named as in the file: `[section] key`.
struct ReloadPlan: Equatable {
    /// Keys applied at run time by `ConfigReloader`.
    static let liveKeys: Set<String> = ["[log] level", "[media] dj", "[media] radio_mode"]

    var applied: [String]
    var needRestart: [String]

    init(running: JarvisVoiceConfig, new: JarvisVoiceConfig) {
        let changed = Self.changedKeys(running, new)
        applied = changed.filter { Self.liveKeys.contains($0) }
        needRestart = changed.filter { !Self.liveKeys.contains($0) }
    }

    /// The effective value of every key, compared section by section (a key removed from the file
    /// that had its default value is no change).
    static func changedKeys(_ old: JarvisVoiceConfig, _ new: JarvisVoiceConfig) -> [String] {
        var keys: [String] = []
        let newSections = Dictionary(uniqueKeysWithValues: Mirror(reflecting: new).children.compactMap { child in
            child.label.map { ($0, child.value) }
        })
        for section in Mirror(reflecting: old).children {
            guard let name = section.label, let newSection = newSections[name] else { continue }
            let newValues = Dictionary(uniqueKeysWithValues: Mirror(reflecting: newSection).children.compactMap { child in
                child.label.map { ($0, String(describing: child.value)) }
            })
            for field in Mirror(reflecting: section.value).children {
                guard let label = field.label, newValues[label] != String(describing: field.value) else { continue }
                keys.append("[\(name)] \(tomlKey(label))")
            }
        }
        return keys
    }

    /// `idleTimeoutSeconds` -> `idle_timeout_s`, `duckDB` -> `duck_db` (the file's spelling).
    static func tomlKey(_ property: String) -> String {
        var key = ""
        var previousIsLower = false
        for character in property {
            if character.isUppercase && previousIsLower { key += "_" }
            key += character.lowercased()
            previousIsLower = character.isLowercase || character.isNumber
        }
        if key.hasSuffix("_seconds") { key = String(key.dropLast("econds".count)) }
        if key.hasSuffix("_minutes") { key = String(key.dropLast("utes".count)) }
        return key
    }

    var summary: String {
        if applied.isEmpty && needRestart.isEmpty { return "no changes" }
        var parts: [String] = []
        if !applied.isEmpty { parts.append("applied \(applied.joined(separator: ", "))") }
        if !needRestart.isEmpty {
            parts.append("\(needRestart.joined(separator: ", ")) \(needRestart.count == 1 ? "needs" : "need") a restart (systemctl restart jarvis-voice)")
        }
        return parts.joined(separator: "; ")
    }
}
