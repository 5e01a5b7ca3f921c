extension JarvisVoiceConfig {
    /// The keys whose effective value differs in `new`, named as in the file (`[realtime] voice`),
    /// with the new value as text, in section and field order. A key removed from the file that had
    /// its default value is no change. Values are settings (paths, names, numbers), never secrets.
    public func changedKeys(to new: JarvisVoiceConfig) -> [(key: String, value: String)] {
        var keys: [(key: String, value: String)] = []
        let newSections = Dictionary(
            uniqueKeysWithValues: Mirror(reflecting: new).children.compactMap { child in
                child.label.map { ($0, child.value) }
            })
        for section in Mirror(reflecting: self).children {
            guard let name = section.label, let newSection = newSections[name] else { continue }
            let newValues = Dictionary(
                uniqueKeysWithValues: Mirror(reflecting: newSection).children.compactMap { child in
                    child.label.map { ($0, String(describing: child.value)) }
                })
            for field in Mirror(reflecting: section.value).children {
                guard let label = field.label, let value = newValues[label], value != String(describing: field.value) else { continue }
                keys.append(("[\(name)] \(Self.fileKey(label))", value))
            }
        }
        return keys
    }

    /// A field's name in the file: `idleTimeoutSeconds` -> `idle_timeout_s`, `duckDB` -> `duck_db`.
    static func fileKey(_ property: String) -> String {
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
}
